import type { MessageRow } from '../store';
import type { SyncContext } from './sync-context';
import { labelOfKey } from './label-key';
import { requireSomeDone, settleWrite } from './settled-write';
import type { MessagesAdded, MessagesRemoved } from './state-updates';

/**
 * Moving and removing messages. The vendor confirms first; only the ids it reports as done
 * change in the local state, so a crash between the two leaves the vendor ahead of the
 * bridge, and the next sync converges (a message is never lost, only re-listed).
 * `from` may be a label view (labels.ts): the message then also leaves the folder it lived in.
 */

export interface CopyOutcome {
  uidValidity: number;
  sourceUids: number[];
  destinationUids: number[];
}

export interface MoveOutcome extends CopyOutcome {
  /** Source UIDs removed from the folder view (moved, or gone at the vendor). */
  expunged: number[];
}

/** The destination's new rows for messages the vendor placed there (\Deleted stays behind). */
export function placed(folder: string, rows: MessageRow[], flags = (r: MessageRow) => r.flags): MessagesAdded {
  const messages = rows.map((r) => ({
    messageUid: r.messageUid,
    flags: flags(r).filter((f) => f !== '\\Deleted'),
    idate: new Date(r.idate),
  }));
  return { type: 'added', folder, messages, announce: true };
}

/** COPYUID data: each source UID with the UID its message has in `folder`. */
export function copyOutcome(ctx: SyncContext, folder: string, rows: MessageRow[]): CopyOutcome {
  const uids = new Map(
    ctx.store
      .rowsByMessageUid(
        ctx.account,
        folder,
        rows.map((r) => r.messageUid),
      )
      .map((r) => [r.messageUid, r.uid]),
  );
  return {
    uidValidity: ctx.store.folderState(ctx.account, folder).uidValidity,
    sourceUids: rows.map((r) => r.uid),
    destinationUids: rows.map((r) => uids.get(r.messageUid) ?? 0),
  };
}

/** The vendor move; returns the rows it confirmed and the ids it no longer has. */
async function moveAtVendor(
  ctx: SyncContext,
  rows: MessageRow[],
  to: string,
): Promise<{ moved: MessageRow[]; notFound: string[] }> {
  const ids = rows.map((r) => r.messageUid);
  const inTarget = (m: { folders: string[] }) => m.folders.some((f) => f.toLowerCase() === to.toLowerCase());
  const result = requireSomeDone(await settleWrite(ctx.vendor, ids, () => ctx.vendor.move(ids, to), inTarget));
  const done = new Set(result.done);
  return { moved: rows.filter((r) => done.has(r.messageUid)), notFound: result.notFound };
}

export async function moveMessages(
  ctx: SyncContext,
  from: string,
  rows: MessageRow[],
  to: string,
  sessionId?: string,
): Promise<MoveOutcome> {
  const { moved, notFound } = await moveAtVendor(ctx, rows, to);
  const movedIds = moved.map((r) => r.messageUid);
  const applied = ctx.state.apply(
    placed(to, moved),
    { type: 'removed', folder: from, messageUids: [...movedIds, ...notFound], cause: sessionId },
    ...leaveOtherFolders(ctx, [from, to], movedIds),
  );
  return { ...copyOutcome(ctx, to, moved), expunged: applied.of(from, 'EXPUNGE').map((c) => c.uid) };
}

/**
 * COPY to a folder for clients that move by COPY + \Deleted + EXPUNGE (mutt, NeoMutt, some
 * Outlook versions), when `copyToFolder` is "move": the vendor moves the message, and the
 * source keeps showing it until the client expunges it there (no vendor call then, see
 * movedAway) or the next sync notices it left.
 */
export async function copyByMoving(ctx: SyncContext, rows: MessageRow[], to: string): Promise<CopyOutcome> {
  const { moved } = await moveAtVendor(ctx, rows, to);
  ctx.state.apply(placed(to, moved));
  return copyOutcome(ctx, to, moved);
}

/** Rows whose message now lives in another vendor folder than `folder` (moved by a COPY). */
export function movedAway(ctx: SyncContext, folder: string, rows: MessageRow[]): Set<string> {
  const elsewhere = ctx.store.rowsEverywhere(
    ctx.account,
    rows.map((r) => r.messageUid),
  );
  return new Set(
    elsewhere.filter((e) => e.folder !== folder && labelOfKey(e.folder) === null).map((e) => e.row.messageUid),
  );
}

/** A message lives in one folder (A7): after a move its rows in other vendor folders go. */
function leaveOtherFolders(ctx: SyncContext, keep: string[], messageUids: string[]): MessagesRemoved[] {
  const stale = new Map<string, string[]>();
  for (const { folder, row } of ctx.store.rowsEverywhere(ctx.account, messageUids)) {
    if (keep.includes(folder) || labelOfKey(folder) !== null) continue;
    stale.set(folder, [...(stale.get(folder) ?? []), row.messageUid]);
  }
  return [...stale].map(([folder, ids]) => ({ type: 'removed', folder, messageUids: ids }));
}
