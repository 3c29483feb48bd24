import type { Database } from './db';

export type QuarantineStatus = 'held' | 'released' | 'expired' | 'failed';

export interface QuarantineRecord {
  quarantineId: string;
  account: string;
  recipient: string;
  subject: string;
  messageId: string | null;
  heldAt: Date;
  expiresAt: Date;
  status: QuarantineStatus;
  detail: string | null;
}

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

/** Vendor quarantine records: held 3 hours, releasable once (spec section 3). */
export const quarantineLifetimeMs = 3 * 60 * 60 * 1000;

/** Every submission the vendor's spam filter held, so it can be listed and released later. */
export class QuarantineStore {
  constructor(private readonly db: Database) {}

  record(r: Omit<QuarantineRecord, 'status' | 'detail' | 'expiresAt'> & { expiresAt?: Date }): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO quarantine (quarantine_id, account, recipient, subject, message_id, held_at, expires_at, status, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'held', NULL)`,
      )
      .run(r.quarantineId, r.account, r.recipient, r.subject, r.messageId, r.heldAt.getTime(), (r.expiresAt ?? new Date(r.heldAt.getTime() + quarantineLifetimeMs)).getTime());
  }

  get(quarantineId: string): QuarantineRecord | null {
    const row = this.db.prepare('SELECT * FROM quarantine WHERE quarantine_id = ?').get(quarantineId) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  list(): QuarantineRecord[] {
    return (this.db.prepare('SELECT * FROM quarantine ORDER BY held_at DESC').all() as Row[]).map(toRecord);
  }

  setStatus(quarantineId: string, status: QuarantineStatus, detail: string | null): void {
    this.db.prepare('UPDATE quarantine SET status = ?, detail = ? WHERE quarantine_id = ?').run(status, detail, quarantineId);
  }
}

function toRecord(r: Row): QuarantineRecord {
  return {
    quarantineId: r.quarantine_id,
    account: r.account,
    recipient: r.recipient,
    subject: r.subject,
    messageId: r.message_id,
    heldAt: new Date(r.held_at),
    expiresAt: new Date(r.expires_at),
    status: r.status,
    detail: r.detail,
  };
}
