import type { MessageRow } from '../store';
import { expungeMessages, placeMessages, type SyncContext } from './folder-sync';
import { labelOfKey } from './labels';

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

/** The vendor move, then the destination numbers what the vendor confirmed. */
async function moveAtVendor(
  ctx: SyncContext,
  rows: MessageRow[],
  to: string,
): Promise<{ outcome: CopyOutcome; moved: MessageRow[]; notFound: string[] }> {
  const result = await ctx.api.move(
    rows.map((r) => r.messageUid),
    to,
  );
  const done = new Set(result.done);
  const moved = rows.filter((r) => done.has(r.messageUid));
  const placed = placeMessages(
    ctx,
    to,
    moved.map((r) => ({
      messageUid: r.messageUid,
      flags: r.flags.filter((f) => f !== '\\Deleted'),
      idate: new Date(r.idate),
    })),
  );
  const outcome = {
    uidValidity: ctx.store.folderState(ctx.account, to).uidValidity,
    sourceUids: moved.map((r) => r.uid),
    destinationUids: moved.map((r) => placed.get(r.messageUid) ?? 0),
  };
  return { outcome, moved, notFound: result.notFound };
}

export async function moveMessages(
  ctx: SyncContext,
  from: string,
  rows: MessageRow[],
  to: string,
  sessionId?: string,
): Promise<MoveOutcome> {
  const { outcome, moved, notFound } = await moveAtVendor(ctx, rows, to);
  const removedEntries = expungeMessages(ctx, from, [...moved.map((r) => r.messageUid), ...notFound]);
  ctx.publish(
    from,
    removedEntries.map((e) => ({ ...e, ignore: sessionId })),
  );
  leaveOtherFolders(
    ctx,
    [from, to],
    moved.map((r) => r.messageUid),
  );
  return { ...outcome, expunged: removedEntries.map((e) => e.uid) };
}

/**
 * COPY to a folder for clients that move by COPY + \Deleted + EXPUNGE (mutt, NeoMutt, some
 * Outlook versions), when `copyToFolder` is "move": the vendor moves the message, and the
 * source keeps showing it until the client expunges it there (no vendor call then, see
 * movedAway) or the next sync notices it left.
 */
export async function copyByMoving(ctx: SyncContext, rows: MessageRow[], to: string): Promise<CopyOutcome> {
  return (await moveAtVendor(ctx, rows, to)).outcome;
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
function leaveOtherFolders(ctx: SyncContext, keep: string[], messageUids: string[]): void {
  const stale = new Map<string, string[]>();
  for (const { folder, row } of ctx.store.rowsEverywhere(ctx.account, messageUids)) {
    if (keep.includes(folder) || labelOfKey(folder) !== null) continue;
    stale.set(folder, [...(stale.get(folder) ?? []), row.messageUid]);
  }
  for (const [folder, ids] of stale) ctx.publish(folder, expungeMessages(ctx, folder, ids));
}
