import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Database } from './db';
import type { LocalLabel, LocalState } from './state-store';
import { accountId } from '../model/account-id';

const localPrefix = 'local:';

/** Ids of bridge-held messages; they never reach the vendor. */
export function isLocalMessage(messageUid: string): boolean {
  return messageUid.startsWith(localPrefix);
}

/**
 * Drafts clients APPEND (the vendor API cannot store arbitrary messages, and losing an
 * autosaved draft is not acceptable), and the Message-IDs of SMTP submissions so the Sent
 * copy a client APPENDs afterwards is recognised instead of duplicated.
 */
export class LocalMessages implements LocalState {
  /** Prepared once: every LIST reads the labels. */
  private readonly labelRows: Statement<[string], { label: string; renamed_from: string | null }>;

  constructor(private readonly db: Database) {
    this.labelRows = db.prepare('SELECT label, renamed_from FROM local_labels WHERE account = ? ORDER BY label');
  }

  /**
   * Keeps `raw` as a new message under an id of its own: every APPEND is a new message (RFC
   * 3501 6.3.11), the same bytes appended twice too, and expunging one leaves the other.
   */
  add(account: string, raw: Buffer): string {
    const messageUid = `${localPrefix}${randomBytes(16).toString('hex')}`;
    this.put(account, messageUid, raw);
    return messageUid;
  }

  /** Keeps `raw` under an id the caller chose (the first bytes stored under it stay). */
  put(account: string, messageUid: string, raw: Buffer): void {
    if (!isLocalMessage(messageUid)) throw new Error(`not a local message id: ${messageUid}`);
    this.db
      .prepare('INSERT OR IGNORE INTO local_messages (account, message_uid, raw, created_at) VALUES (?, ?, ?, ?)')
      .run(accountId(account), messageUid, raw, Date.now());
  }

  get(account: string, messageUid: string): { raw: Buffer; createdAt: Date } | null {
    const row = this.db
      .prepare('SELECT raw, created_at FROM local_messages WHERE account = ? AND message_uid = ?')
      .get(accountId(account), messageUid) as { raw: Buffer; created_at: number } | undefined;
    return row ? { raw: row.raw, createdAt: new Date(row.created_at) } : null;
  }

  remove(account: string, messageUids: string[]): void {
    const del = this.db.prepare('DELETE FROM local_messages WHERE account = ? AND message_uid = ?');
    this.db.transaction(() => {
      for (const id of messageUids) del.run(accountId(account), id);
    })();
  }

  recordSubmission(account: string, messageId: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO submissions (account, message_id, submitted_at) VALUES (?, ?, ?)')
      .run(accountId(account), messageId, Date.now());
  }

  wasSubmitted(account: string, messageId: string): boolean {
    return !!this.db
      .prepare('SELECT 1 FROM submissions WHERE account = ? AND message_id = ?')
      .get(accountId(account), messageId);
  }

  labels(account: string): LocalLabel[] {
    return this.labelRows.all(accountId(account)).map((r) => ({ label: r.label, renamedFrom: r.renamed_from }));
  }

  putLabel(account: string, label: string, renamedFrom: string | null): void {
    this.db
      .prepare('INSERT OR REPLACE INTO local_labels (account, label, renamed_from) VALUES (?, ?, ?)')
      .run(accountId(account), label, renamedFrom);
  }

  removeLabel(account: string, label: string): void {
    this.db.prepare('DELETE FROM local_labels WHERE account = ? AND label = ?').run(accountId(account), label);
  }
}
