import type { Statement } from 'better-sqlite3';
import type { Database } from './db';
import { accountId } from '../model/account-id';
import type { QuarantineRecord, QuarantineStatus } from '../model/quarantine-record';
import type { QuarantineLog } from './state-store';

/**
 * Every submission the vendor's spam filter held (one row per recipient copy, since each copy
 * is its own /v3.0/send call and gets its own quarantine_id), so `mailbridge quarantine list`
 * and `release` work after the SMTP client has long disconnected. The table comes from the
 * state database's migrations (./db.ts).
 */

interface Row {
  quarantine_id: string;
  account: string;
  recipient: string;
  subject: string;
  message_id: string | null;
  held_at: number;
  expires_at: number;
  status: QuarantineStatus;
  detail: string | null;
}

export class QuarantineStore implements QuarantineLog {
  /** Prepared once: every LIST of a quarantine folder reads the list. */
  private listing?: Statement<[], Row>;

  constructor(private readonly db: Database) {}

  record(r: Omit<QuarantineRecord, 'status' | 'detail'>): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO quarantine
           (quarantine_id, account, recipient, subject, message_id, held_at, expires_at, status, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'held', NULL)`,
      )
      .run(r.quarantineId, r.account, r.recipient, r.subject, r.messageId, r.heldAt.getTime(), r.expiresAt.getTime());
  }

  get(quarantineId: string): QuarantineRecord | null {
    const row = this.db.prepare('SELECT * FROM quarantine WHERE quarantine_id = ?').get(quarantineId) as
      | Row
      | undefined;
    return row ? toRecord(row) : null;
  }

  /** Newest first. */
  list(): QuarantineRecord[] {
    this.listing ??= this.db.prepare<[], Row>('SELECT * FROM quarantine ORDER BY held_at DESC, quarantine_id');
    return this.listing.all().map(toRecord);
  }

  /** Records by state; held records past their expiry count as expired. */
  countByState(now: Date): Record<QuarantineStatus, number> {
    const counts: Record<QuarantineStatus, number> = { held: 0, released: 0, expired: 0 };
    const rows = this.db
      .prepare(
        `SELECT CASE WHEN status = 'held' AND expires_at <= ? THEN 'expired' ELSE status END AS state, count(*) AS n
         FROM quarantine GROUP BY state`,
      )
      .all(now.getTime()) as Array<{ state: QuarantineStatus; n: number }>;
    for (const r of rows) counts[r.state] = r.n;
    return counts;
  }

  markReleased(quarantineId: string, emailId: string | null): void {
    this.db
      .prepare("UPDATE quarantine SET status = 'released', detail = ? WHERE quarantine_id = ?")
      .run(emailId, quarantineId);
  }

  /** A refused release of a held record: its status from now on, and the refusal noted. A released record stays released. */
  markRefused(quarantineId: string, status: QuarantineStatus, refusal: string): void {
    this.db
      .prepare("UPDATE quarantine SET status = ?, detail = ? WHERE quarantine_id = ? AND status = 'held'")
      .run(status, refusal, quarantineId);
  }
}

function toRecord(r: Row): QuarantineRecord {
  return {
    quarantineId: r.quarantine_id,
    account: accountId(r.account),
    recipient: r.recipient,
    subject: r.subject,
    messageId: r.message_id,
    heldAt: new Date(r.held_at),
    expiresAt: new Date(r.expires_at),
    status: r.status,
    detail: r.detail,
  };
}
