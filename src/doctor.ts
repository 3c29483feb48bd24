import type { Config } from './config';
import type { TokenVault } from './store';
import type { VendorApi } from './upstream/api';

/**
 * Asks the vendor whether a mailbox's tokens work; says how it asked when that is worth saying.
 * Beside a running daemon the question goes through it (see cli.ts): the vendor counts a
 * mailbox's requests per IP, so one sent past the daemon's rate window could be the one over
 * the limit while the daemon syncs.
 */
export type TokenCheck = (mailbox: string) => Promise<string | null>;

/** The daemon's answer to the control socket's `POST /verify`. */
export interface DaemonTokenCheck {
  ok: boolean;
  error?: string;
}

/** `mailbridge doctor`: one line per check, true when every check passed. */
export async function runDoctor(
  cfg: Config,
  vendor: VendorApi,
  secrets: TokenVault,
  checkTokens: TokenCheck,
  print: (line: string) => void,
): Promise<boolean> {
  let ok = true;
  const check = async (label: string, fn: () => Promise<string>) => {
    try {
      print(`ok    ${label}: ${await fn()}`);
    } catch (err) {
      ok = false;
      print(`FAIL  ${label}: ${(err as Error).message}`);
    }
  };
  print(`ok    config: valid (state dir ${cfg.stateDir})`);
  await check(
    `vendor reachable (${cfg.vendor.graphUrl})`,
    async () => `${(await vendor.sharedDomains()).domains.length} shared domains`,
  );
  const mailboxes = new Set([...cfg.accounts.map((a) => a.mailbox), ...secrets.mailboxes()]);
  if (!mailboxes.size) {
    ok = false;
    print('FAIL  accounts: none configured; add one with "mailbridge account add --mailbox ADDRESS"');
  }
  for (const mailbox of mailboxes) {
    await check(`account ${mailbox}`, async () => {
      const stored = secrets.get(mailbox);
      if (!stored) throw new Error(`no tokens stored; run "mailbridge account add --mailbox ${mailbox}"`);
      if (stored.needsNewTokens) throw new Error(`${stored.needsNewTokens}`);
      const how = await checkTokens(mailbox);
      const found = stored.passwordHash
        ? 'tokens valid, bridge password set'
        : `tokens valid; no bridge password yet: run "mailbridge account password --mailbox ${mailbox}"`;
      return how ? `${found} (${how})` : found;
    });
  }
  return ok;
}
