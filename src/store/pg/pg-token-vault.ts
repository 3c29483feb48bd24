import type pg from 'pg';
import { registerSecret } from '../../log';
import type { StoredAccount } from '../../model/tokens';
import { TokenRecords } from '../token-records';
import { accountId } from '../../model/account-id';
import { wakeUpChannel } from './leases';
import type { SecretBox } from './secret-box';

/**
 * Token pairs and bridge-password hashes in PostgreSQL, each row sealed (./secret-box.ts).
 * Reads answer from memory; a write returns once its row is committed, so a rotated refresh
 * token is stored before the access token that came with it is used. `reread` reads the
 * rows again (another node or `mailbridge account add` changed them); a row replaces the one
 * in memory only if it was written later, so a reread that read before a write of this node
 * committed never brings back the pair that write replaced.
 */
export class PgTokenVault extends TokenRecords {
  private records = new Map<string, { account: StoredAccount; writtenAt: number }>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly box: SecretBox,
  ) {
    super();
  }

  static async open(pool: pg.Pool, box: SecretBox): Promise<PgTokenVault> {
    const vault = new PgTokenVault(pool, box);
    await vault.reread();
    return vault;
  }

  async reread(): Promise<void> {
    const { rows } = await this.pool.query<{ mailbox: string; sealed: Buffer; written_at: Date }>(
      'SELECT mailbox, sealed, updated_at AS written_at FROM secrets',
    );
    const present = new Set<string>();
    for (const { mailbox, sealed, written_at } of rows) {
      present.add(mailbox);
      const known = this.records.get(mailbox);
      if (known && known.writtenAt >= written_at.getTime()) continue;
      const account = JSON.parse(this.box.open(mailbox, sealed)) as StoredAccount;
      registerSecret(account.accessToken);
      registerSecret(account.refreshToken);
      this.records.set(mailbox, { account, writtenAt: written_at.getTime() });
    }
    for (const mailbox of this.records.keys()) if (!present.has(mailbox)) this.records.delete(mailbox);
  }

  get(mailbox: string): StoredAccount | undefined {
    return this.records.get(accountId(mailbox))?.account;
  }

  mailboxes(): string[] {
    return [...this.records.keys()];
  }

  protected async write(mailbox: string, account: StoredAccount | undefined): Promise<void> {
    if (!account) {
      await this.pool.query('DELETE FROM secrets WHERE mailbox = $1', [mailbox]);
      this.records.delete(mailbox);
      return;
    }
    // clock_timestamp: two writes in one transaction still get increasing stamps
    const { rows } = await this.pool.query<{ written_at: Date }>(
      `WITH written AS (
         INSERT INTO secrets (mailbox, sealed, updated_at) VALUES ($1, $2, clock_timestamp())
         ON CONFLICT (mailbox) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at
         RETURNING updated_at)
       SELECT updated_at AS written_at, pg_notify('${wakeUpChannel}', 'secrets') FROM written`,
      [mailbox, this.box.seal(mailbox, JSON.stringify(account))],
    );
    this.records.set(mailbox, { account, writtenAt: rows[0].written_at.getTime() });
  }
}
