import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { registerSecret } from '../log';
import type { StoredAccount, TokenPair } from '../model/tokens';
import { writeFileAtomic } from '../util/atomic-file';
import type { TokenVault } from './state-store';
import { TokenRecords } from './token-records';
import { accountId } from '../model/account-id';

/**
 * `<stateDir>/secrets.json` (mode 0600): each mailbox's vendor token pair and the hash of its
 * bridge password. Every change rewrites the file atomically (temp file, fsync, rename,
 * fsync dir), so a rotated refresh token is durable before anything uses it: the vendor
 * invalidates the old one at once, and losing the new one would lock the account out.
 */

interface SecretsFile {
  version: 1;
  accounts: Record<string, StoredAccount>;
}

const fileName = 'secrets.json';

function stampOf(file: string): string | null {
  try {
    const st = fs.statSync(file);
    return `${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch {
    return null;
  }
}

function readFile(file: string): SecretsFile {
  if (!fs.existsSync(file)) return { version: 1, accounts: {} };
  // a copy left readable by others is tightened rather than trusted as is
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  let data: Partial<SecretsFile>;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SecretsFile>;
  } catch (err) {
    throw new Error(
      `${file} is not valid JSON (${(err as Error).message}); ` +
        'restore it from backup or delete it and run "mailbridge account add" again',
    );
  }
  const accounts = data.accounts ?? {};
  for (const a of Object.values(accounts)) {
    registerSecret(a.accessToken);
    registerSecret(a.refreshToken);
  }
  return { version: 1, accounts };
}

export class SecretStore extends TokenRecords {
  private data: SecretsFile;
  private stamp: string | null;

  private constructor(private readonly file: string) {
    super();
    this.data = readFile(file);
    this.stamp = stampOf(file);
  }

  static open(stateDir: string): SecretStore {
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    return new SecretStore(path.join(stateDir, fileName));
  }

  /**
   * Picks up a file replaced by another process (e.g. "mailbridge account add" while the
   * daemon runs): every write is a rename, so a changed inode or mtime means new content.
   */
  private sync(): void {
    const stamp = stampOf(this.file);
    if (stamp === this.stamp) return;
    this.data = readFile(this.file);
    this.stamp = stamp;
  }

  protected write(mailbox: string, account: StoredAccount | undefined): void {
    this.sync();
    if (account) this.data.accounts[mailbox] = account;
    else delete this.data.accounts[mailbox];
    writeFileAtomic(this.file, `${JSON.stringify(this.data, null, 2)}\n`);
    this.stamp = stampOf(this.file);
  }

  get(mailbox: string): StoredAccount | undefined {
    this.sync();
    return this.data.accounts[accountId(mailbox)];
  }

  mailboxes(): string[] {
    this.sync();
    return Object.keys(this.data.accounts);
  }

  /** Synchronous here: a file is written before the call returns. */
  override putTokens(mailbox: string, pair: TokenPair): void {
    super.putTokens(mailbox, pair);
  }

  override remove(mailbox: string): boolean {
    return super.remove(mailbox) as boolean;
  }

  override setBridgePassword(mailbox: string): string {
    return super.setBridgePassword(mailbox) as string;
  }
}

/**
 * Config-file tokens seed the store once; afterwards the rotated pair in the store wins, unless
 * the vendor refused it and the config holds another pair (put there to replace it, then reload).
 */
export async function importInitialTokens(config: Config, secrets: TokenVault): Promise<void> {
  const wanted = (a: Config['accounts'][number]) => {
    const stored = secrets.get(a.mailbox);
    return !stored || (stored.needsNewTokens !== undefined && stored.refreshToken !== a.refreshToken);
  };
  // started together: a synchronous store has written them all before this returns
  const writes = config.accounts.flatMap((a) =>
    !a.accessToken || !a.refreshToken || !wanted(a)
      ? []
      : [secrets.putTokens(a.mailbox, { accessToken: a.accessToken, refreshToken: a.refreshToken })],
  );
  await Promise.all(writes);
}
