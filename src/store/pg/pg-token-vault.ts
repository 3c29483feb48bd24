import type pg from 'pg';
import { registerSecret } from '../../log';
import type { StoredAccount } from '../secrets';
import { TokenRecords, mailboxKey } from '../token-records';
import type { SecretBox } from './secret-box';

/**
 * Token pairs and bridge-password hashes in PostgreSQL, each row sealed (./secret-box.ts).
 * Reads answer from memory; a write returns once its row is committed, so a rotated refresh
 * token is stored before the access token that came with it is used. `refresh` reads the
 * rows again (another node or `mailbridge account add` changed them).
 */
export class PgTokenVault extends TokenRecords {
  private records = new Map<string, StoredAccount>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly box: SecretBox,
  ) {
    super();
  }

  static async open(pool: pg.Pool, box: SecretBox): Promise<PgTokenVault> {
    const vault = new PgTokenVault(pool, box);
    await vault.refresh();
    return vault;
  }

  async refresh(): Promise<void> {
    const { rows } = await this.pool.query<{ mailbox: string; sealed: Buffer }>('SELECT mailbox, sealed FROM secrets');
    const records = new Map<string, StoredAccount>();
    for (const { mailbox, sealed } of rows) {
      const account = JSON.parse(this.box.open(mailbox, sealed)) as StoredAccount;
      registerSecret(account.accessToken);
      registerSecret(account.refreshToken);
      records.set(mailbox, account);
    }
    this.records = records;
  }

  get(mailbox: string): StoredAccount | undefined {
    return this.records.get(mailboxKey(mailbox));
  }

  mailboxes(): string[] {
    return [...this.records.keys()];
  }

  protected async write(mailbox: string, account: StoredAccount | undefined): Promise<void> {
    if (account)
      await this.pool.query(
        `INSERT INTO secrets (mailbox, sealed) VALUES ($1, $2)
         ON CONFLICT (mailbox) DO UPDATE SET sealed = excluded.sealed, updated_at = now()`,
        [mailbox, this.box.seal(mailbox, JSON.stringify(account))],
      );
    else await this.pool.query('DELETE FROM secrets WHERE mailbox = $1', [mailbox]);
    if (account) this.records.set(mailbox, account);
    else this.records.delete(mailbox);
  }
}
