import fs from 'node:fs';
import path from 'node:path';
import { read } from 'read';
import { applyEnv, ConfigError, parseConfig, readRawConfig, type Config } from './config';
import { clientServers, settingsLines } from './client-config';
import { mailbridgeCommand } from './command-name';
import { createLogger } from './log';
import { ensureStateDir } from './state-dir';
import type { TokenPair, TokenVault } from './store';
import { openStateStore } from './store/open-state';
import type { StoredAccount } from './model/tokens';
import { accountId } from './model/account-id';
import { createVendorClient } from './upstream/vendor-client';
import { writeFileAtomic } from './util/atomic-file';
import { readTokensFromEnvOrStdin } from './util/read-secret';
import { configFlag, shellWord } from './util/shell-quote';

export interface SetupIo {
  env: NodeJS.ProcessEnv;
  input: NodeJS.ReadStream;
  print(line: string): void;
}

/** Where the mailbox tokens come from, told before they are asked for (spec section 5). */
const tokenHelp = [
  'The bridge reads the mailbox with its own token pair (an access token and a refresh token).',
  "Generate it in the vendor's webmail: sign in as this mailbox, open Settings, and create the",
  'mailbox key pair there (one pair per mailbox). Paste both here; they are stored in the state',
  'directory (mode 0600) and never printed.',
];

/**
 * A vault holding one pair in memory: the tokens are tried against the vendor before anything
 * is written, and a refresh during the check (the access token had expired) rotates the pair
 * here, so the pair stored afterwards is the one that still works.
 */
class TrialVault implements TokenVault {
  private account: StoredAccount;
  constructor(
    private readonly mailbox: string,
    pair: TokenPair,
  ) {
    this.account = { ...pair, updatedAt: new Date().toISOString() };
  }
  get(mailbox: string): StoredAccount | undefined {
    return accountId(mailbox) === accountId(this.mailbox) ? this.account : undefined;
  }
  mailboxes(): string[] {
    return [this.mailbox];
  }
  putTokens(_mailbox: string, pair: TokenPair): void {
    this.account = { ...pair, updatedAt: new Date().toISOString() };
  }
  remove(): boolean {
    return false;
  }
  markNeedsNewTokens(_mailbox: string, reason: string): void {
    this.account = { ...this.account, needsNewTokens: reason };
  }
  setBridgePassword(): string {
    throw new Error('a trial vault keeps no bridge password');
  }
  async verifyBridgePassword(): Promise<boolean> {
    return false;
  }
  pair(): TokenPair {
    return { accessToken: this.account.accessToken, refreshToken: this.account.refreshToken };
  }
}

/** Asks on the terminal, or takes the value from the environment (scripts); `secret` is not echoed. */
async function value(io: SetupIo, envName: string, prompt: string, secret = false, optional = false): Promise<string> {
  const given = io.env[envName]?.trim();
  if (given) return given;
  if (!io.input.isTTY) {
    if (optional) return '';
    throw new ConfigError(`setup needs ${prompt.replace(/:.*$/, '')}: set ${envName} (no terminal to ask on)`);
  }
  for (;;) {
    const answer = (await read({ prompt, silent: secret, replace: secret ? '*' : undefined, input: io.input })).trim();
    if (answer || optional) return answer;
  }
}

/** The config file's contents: the existing one (setup again adds a mailbox), or a new one from the vendor's addresses. */
async function baseConfig(file: string, io: SetupIo): Promise<Record<string, unknown>> {
  // only the file: MAILBRIDGE_* overrides of this run must not be written into it
  if (fs.existsSync(file)) return readRawConfig(file, {}).raw;
  io.print(`Writing a new config to ${file}. First the vendor's API addresses (from its documentation):`);
  const vendor: Record<string, string> = {
    readUrl: await value(io, 'MAILBRIDGE_READ_URL', 'Mailbox reading URL (read_url): '),
    mailUrl: await value(io, 'MAILBRIDGE_MAIL_URL', 'Sending URL (mail_url): '),
    graphUrl: await value(io, 'MAILBRIDGE_GRAPH_URL', 'Management URL (graph_url): '),
  };
  const apiKey = await value(
    io,
    'MAILBRIDGE_API_KEY',
    'Send-and-manage API key (Developer page of the vendor dashboard; Enter to skip, then sending fails): ',
    true,
    true,
  );
  if (apiKey) vendor.apiKey = apiKey;
  return { vendor, accounts: [], stateDir: './mailbridge-state' };
}

/** Tries the pair as `doctor` does: the vendor answers, and the mailbox token lists the folders. */
async function check(cfg: Config, mailbox: string, tokens: TokenPair, io: SetupIo): Promise<TokenPair | null> {
  const vault = new TrialVault(mailbox, tokens);
  const vendor = createVendorClient(cfg, vault, createLogger('silent'));
  const step = async (label: string, fix: string, fn: () => Promise<unknown>): Promise<boolean> => {
    try {
      await fn();
      io.print(`ok    ${label}`);
      return true;
    } catch (err) {
      io.print(`FAIL  ${label}: ${vault.get(mailbox)?.needsNewTokens ?? (err as Error).message}`);
      io.print(`Nothing was written. ${fix}`);
      return false;
    }
  };
  try {
    const reachable = await step(
      `vendor reachable (${cfg.vendor.graphUrl})`,
      `Check the vendor's addresses in ${cfg.configFile} (or MAILBRIDGE_*_URL) and the network, and run setup again.`,
      () => vendor.sharedDomains(),
    );
    const accepted =
      reachable &&
      (await step(
        `tokens of ${mailbox}: the vendor accepts them`,
        'Generate a new key pair in the webmail settings of the mailbox, and run setup again.',
        () => vendor.mailbox(mailbox).verify(),
      ));
    return accepted ? vault.pair() : null;
  } finally {
    await vendor.close();
  }
}

/**
 * `mailbridge setup`: a mailbox and its token pair, asked on the terminal or taken from the
 * environment and stdin (scripts), checked against the vendor, then written (config file and
 * state); prints the settings for a mail client and the next command. Setup again with the same
 * file adds another mailbox. False when the vendor refused.
 */
export async function runSetup(configPath: string, mailboxFlag: string | undefined, io: SetupIo): Promise<boolean> {
  const file = path.resolve(configPath);
  const raw = await baseConfig(file, io);
  const mailbox = mailboxFlag ?? (await value(io, 'MAILBRIDGE_MAILBOX', 'Mailbox address (e.g. me@example.com): '));
  const accounts = Array.isArray(raw.accounts) ? (raw.accounts as Array<{ mailbox?: unknown }>) : [];
  const listed = accounts.some((a) => accountId(String(a.mailbox)) === accountId(mailbox));
  const next = { ...raw, accounts: listed ? accounts : [...accounts, { mailbox }] };
  // the environment still applies, as for every command: a port chosen by MAILBRIDGE_* is the one printed
  const effective = structuredClone(next);
  applyEnv(effective, io.env);
  const cfg = parseConfig(effective, file, path.dirname(file), file);
  tokenHelp.forEach(io.print);
  const tokens =
    io.input.isTTY && !(io.env.MAILBRIDGE_ACCESS_TOKEN && io.env.MAILBRIDGE_REFRESH_TOKEN)
      ? {
          accessToken: await value(io, 'MAILBRIDGE_ACCESS_TOKEN', 'Access token: ', true),
          refreshToken: await value(io, 'MAILBRIDGE_REFRESH_TOKEN', 'Refresh token: ', true),
        }
      : await readTokensFromEnvOrStdin(io.env, io.input);
  const checked = await check(cfg, mailbox, tokens, io);
  if (!checked) return false;

  ensureStateDir(cfg.stateDir);
  writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  const state = await openStateStore(cfg, 'cli');
  let password: string | null = null;
  try {
    const had = !!state.secrets.get(mailbox)?.passwordHash;
    await state.secrets.putTokens(mailbox, checked);
    if (!had) password = await state.secrets.setBridgePassword(mailbox);
  } finally {
    await state.close();
  }
  const run = shellWord(mailbridgeCommand(io.env));
  const withConfig = configFlag(file);
  [
    '',
    `Saved ${mailbox} in ${file} (state in ${cfg.stateDir}).`,
    '',
    'Mail client settings (the client-config command below writes them for Thunderbird, Apple Mail, Outlook):',
    ...settingsLines(
      clientServers(cfg),
      mailbox,
      password ?? `unchanged (a new one: ${run} account password --mailbox ${mailbox}${withConfig})`,
    ),
    ...(password ? ['  (the bridge password, for mail clients only: it is shown only now)'] : []),
    '',
    'Next, run the bridge:',
    `  ${run} start${withConfig}`,
    `or as a service that starts with your session: ${run} service install${withConfig}`,
    `Mail client files: ${run} client-config thunderbird|apple|outlook${withConfig}`,
    `A bridge already running serves the new mailbox after: ${run} reload${withConfig}`,
    `Another mailbox: ${run} setup${withConfig}`,
  ].forEach(io.print);
  return true;
}
