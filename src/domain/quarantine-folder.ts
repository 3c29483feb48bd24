import type { LocalState, MessageRow } from '../store';
import type { QuarantineRecord } from '../model/quarantine-record';
import type { ImapFolder } from './mailbox-map';
import type { SyncContext } from './sync-context';
import { Refusal } from './refusal';

/**
 * The `Quarantine` mailbox: the submissions the vendor's spam filter held, as they were
 * submitted, under UIDs of their own. Its source of truth is the Quarantine (quarantine.ts,
 * where SMTP records every hold); the bytes are kept as local messages (`local:q:<quarantine_id>`), so FETCH
 * and SEARCH serve them like drafts. A MOVE or COPY to INBOX or Sent, or `STORE +FLAGS
 * ($Release)`, releases a message through the vendor; released and expired records leave the
 * mailbox (EXPUNGE to every session). Nothing here is ever synced with the vendor's folders.
 */

export const quarantinePath = 'Quarantine';
/** The keyword whose setting asks for a release. */
export const releaseKeyword = '$Release';
/** A state key no vendor folder or label view can have. */
const quarantineKey = '\u0001quarantine';
const messagePrefix = 'local:q:';

/** What the Quarantine (quarantine.ts) offers the mailbox: the account's records, and a release through the vendor. */
export interface QuarantineAccess {
  records(account: string): QuarantineRecord[];
  /** Asks the vendor to release the record and notes the outcome in the log; `text` says why not. */
  release(quarantineId: string): Promise<{ ok: boolean; text: string }>;
  /** The log's clock (epoch ms): a record past its expiry is over. */
  now(): number;
}

/** A submission the vendor held, as SMTP saw it. */
export interface HeldSubmission {
  quarantineId: string;
  recipient: string;
  expiresAt: Date;
  raw: Buffer;
}

export class QuarantineFolder {
  readonly folder: ImapFolder = {
    path: quarantinePath,
    key: quarantineKey,
    scope: { folder: quarantineKey },
    role: null,
    specialUse: null,
    kind: 'quarantine',
  };

  constructor(
    private readonly ctx: SyncContext,
    private readonly local: LocalState,
    private readonly access: QuarantineAccess,
  ) {}

  /** Listed once the account has had a submission held, so other accounts see no extra mailbox. */
  listed(): boolean {
    return this.access.records(this.ctx.account).length > 0;
  }

  /**
   * Keeps the held copy (one per recipient, since each has its own quarantine id) with headers
   * saying which hold it is and until when it can be released; these bytes never change.
   */
  hold(held: HeldSubmission): void {
    const header =
      `X-Mailbridge-Quarantine-Id: ${held.quarantineId}\r\n` +
      `X-Mailbridge-Quarantine-Recipient: ${held.recipient}\r\n` +
      `X-Mailbridge-Quarantine-Expires: ${held.expiresAt.toUTCString().replace('GMT', '+0000')}\r\n`;
    this.local.put(this.ctx.account, messagePrefix + held.quarantineId, Buffer.concat([Buffer.from(header), held.raw]));
    this.reconcile();
  }

  /**
   * Held records in (those whose bytes this bridge kept), released and expired ones out; the
   * UIDs that left. `cause`: the session that tells its client of them itself.
   */
  reconcile(cause?: string): number[] {
    const now = this.access.now();
    const held = new Map(
      this.access
        .records(this.ctx.account)
        .filter((r) => r.status === 'held' && r.expiresAt.getTime() > now)
        .map((r) => [messagePrefix + r.quarantineId, r]),
    );
    const rows = this.ctx.store.listMessages(this.ctx.account, quarantineKey);
    const present = new Set(rows.map((r) => r.messageUid));
    const gone = rows.filter((r) => !held.has(r.messageUid)).map((r) => r.messageUid);
    const added = [...held]
      .filter(([id]) => !present.has(id) && this.local.get(this.ctx.account, id))
      .sort(([, a], [, b]) => a.heldAt.getTime() - b.heldAt.getTime())
      .map(([messageUid, r]) => ({ messageUid, flags: [], idate: r.heldAt }));
    if (!gone.length && !added.length) return [];
    const applied = this.ctx.state.apply(
      { type: 'removed', folder: quarantineKey, messageUids: gone, cause },
      { type: 'added', folder: quarantineKey, messages: added, announce: true },
    );
    this.local.remove(this.ctx.account, gone);
    return applied.of(quarantineKey, 'EXPUNGE').map((c) => c.uid);
  }

  /**
   * Releases each message; the released (and any found expired) leave the mailbox, and their
   * UIDs are returned (see reconcile for `cause`). A refusal is answered NO with the vendor's
   * reason once every message was tried.
   */
  async release(rows: MessageRow[], cause?: string): Promise<number[]> {
    const refusals: string[] = [];
    for (const row of rows) {
      const outcome = await this.access.release(row.messageUid.slice(messagePrefix.length));
      if (!outcome.ok) refusals.push(outcome.text);
    }
    // on a refusal the command fails and writes no EXPUNGE: every session, this one too, hears of the released
    const expunged = this.reconcile(refusals.length ? undefined : cause);
    if (refusals.length) throw new Refusal('cannot', refusals.join('; '));
    return expunged;
  }

  /** Only a release takes a held message out; anything else would look like a delivery that never happened. */
  refuse(what: string): never {
    throw new Refusal(
      'cannot',
      `${what} is not possible in ${quarantinePath}: MOVE or COPY a message to INBOX or Sent, or set ${releaseKeyword}, ` +
        'to release it; held messages leave by themselves when they expire (3 hours)',
    );
  }
}
