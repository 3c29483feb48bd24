import type { Session } from './engine';

/**
 * \Recent (RFC 3501 2.3.2): a message is recent in exactly one session, the first one that
 * meets it in its folder. Each folder keeps a watermark, the highest UID some session has
 * claimed: SELECT claims every UID above it, and a session that meets newer messages later
 * (its FETCH, SEARCH or STORE after they arrived) claims those. Kept in memory: after a
 * restart the first SELECT of a folder finds recent what the state database did not hold yet.
 * An EXAMINE session sees as recent what no session has claimed, and claims nothing: it must
 * not change per-user state (RFC 3501 6.3.2). A watermark holds for one UIDVALIDITY: a folder
 * numbered afresh (a label folder's name used again) is met anew.
 */
export class RecentMessages {
  private readonly watermarks = new Map<string, { uid: number; uidValidity: number }>();
  private readonly claimed = new WeakMap<Session, { folder: string; uids: Set<number>; readOnly: boolean }>();
  /** The sessions that opened each folder, so STATUS sees what they were told of (pruned as they leave). */
  private readonly selecting = new Map<string, Set<Session>>();

  /**
   * SELECT of `folder` showing `uids`; `known` is the highest UID the bridge held before the
   * folder was synced for this SELECT (used the first time the folder is met). Returns the
   * number of messages recent in this session.
   */
  open(
    session: Session,
    folder: string,
    uids: readonly number[],
    known: { uid: number; uidValidity: number },
    readOnly = false,
  ): number {
    this.meet(folder, known);
    this.leave(session);
    this.claimed.set(session, { folder, uids: new Set(), readOnly });
    this.selectingOf(folder).add(session);
    return this.claimNew(session, uids);
  }

  /**
   * The first time the bridge meets `folder` (a SELECT, or an APPEND before any session opened
   * it): the messages up to UID `known` are not recent, and anything newer is, until a session
   * claims it. An APPEND sets it so that what it adds is recent for the first SELECT, as in Dovecot.
   */
  meet(folder: string, known: { uid: number; uidValidity: number }): void {
    if (this.watermarks.get(folder)?.uidValidity !== known.uidValidity) this.watermarks.set(folder, { ...known });
  }

  /** Claims the UIDs of the session's view that no session has claimed yet. */
  claimNew(session: Session, uids: readonly number[]): number {
    const mine = this.claimed.get(session);
    if (!mine) return 0;
    const mark = this.watermarks.get(mine.folder);
    const watermark = mark?.uid ?? 0;
    let highest = watermark;
    // UIDs only grow, and new ones are appended: walk back from the end
    for (let i = uids.length - 1; i >= 0 && uids[i] > watermark; i--) {
      mine.uids.add(uids[i]);
      highest = Math.max(highest, uids[i]);
    }
    if (mark && !mine.readOnly) mark.uid = highest;
    return mine.uids.size;
  }

  /**
   * How many messages of its view are recent in the session, after it claimed those it was
   * told of (imap-core's onRecentCount: its untagged RECENT follows this number).
   */
  count(session: Session): number {
    if (!session.selected) return 0;
    const uids = session.selected.uidList;
    this.claimNew(session, uids);
    // expunged ones are no longer counted; UIDs ascend in the view
    let count = 0;
    for (const uid of this.of(session)) if (includesSorted(uids, uid)) count++;
    return count;
  }

  /** The session's recent UIDs (empty when none). */
  of(session: Session): ReadonlySet<number> {
    return this.claimed.get(session)?.uids ?? new Set();
  }

  /** The session ended, or opens another folder. */
  leave(session: Session): void {
    const mine = this.claimed.get(session);
    if (!mine) return;
    const sessions = this.selecting.get(mine.folder);
    sessions?.delete(session);
    if (sessions?.size === 0) this.selecting.delete(mine.folder);
  }

  /**
   * STATUS RECENT of `folder` asked by `session`. A session is told of a new message with its
   * EXISTS, and that makes it recent there (as in Dovecot), though the session has not looked
   * at it yet: the sessions with `folder` open claim what they were told of first. The session
   * that has `folder` open gets its own recent count, others what no session has claimed.
   */
  status(session: Session, folder: string, listUids: () => readonly number[]): number {
    for (const other of [...(this.selecting.get(folder) ?? [])]) {
      if (other.selected && other.selected.mailbox === folder) this.claimNew(other, other.selected.uidList);
      else this.leave(other);
    }
    const mine = this.claimed.get(session);
    if (mine?.folder === folder && session.selected) return this.count(session);
    return this.unclaimed(folder, listUids);
  }

  /** Messages of `folder` no session has claimed yet. */
  private unclaimed(folder: string, listUids: () => readonly number[]): number {
    const watermark = this.watermarks.get(folder)?.uid;
    if (watermark === undefined) return 0;
    const uids = listUids();
    let count = 0;
    for (let i = uids.length - 1; i >= 0 && uids[i] > watermark; i--) count++;
    return count;
  }

  private selectingOf(folder: string): Set<Session> {
    const sessions = this.selecting.get(folder) ?? new Set<Session>();
    this.selecting.set(folder, sessions);
    return sessions;
  }

  /** `flags` with \Recent added when `uid` is recent in the session. */
  static flagsOf(recent: ReadonlySet<number>, uid: number, flags: readonly string[]): readonly string[] {
    return recent.has(uid) ? [...flags, '\\Recent'] : flags;
  }
}

/** Whether ascending `sorted` holds `value` (binary search). */
function includesSorted(sorted: readonly number[], value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === value) return true;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
