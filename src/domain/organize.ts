import type { MessageRow } from '../store';
import type { FolderChange } from './changes';
import { expungeMessages, type SyncContext } from './folder-sync';
import { labelOfKey } from './labels';

/**
 * Moving and removing messages. The vendor confirms first; only the ids it reports as done
 * change in the local state, so a crash between the two leaves the vendor ahead of the
 * bridge, and the next sync converges (a message is never lost, only re-listed).
 * `from` may be a label view (labels.ts): the message then also leaves the folder it lived in.
 */

export interface MoveOutcome {
  uidValidity: number;
  sourceUids: number[];
  destinationUids: number[];
  /** Source UIDs removed from the folder view (moved, or gone at the vendor). */
  expunged: number[];
}

export async function moveMessages(ctx: SyncContext, from: string, rows: MessageRow[], to: string, sessionId?: string): Promise<MoveOutcome> {
  const result = await ctx.api.move(
    rows.map((r) => r.messageUid),
    to,
  );
  const done = new Set(result.done);
  const moved = rows.filter((r) => done.has(r.messageUid));
  const assigned = ctx.store.assignUids(
    ctx.account,
    to,
    moved.map((r) => ({ messageUid: r.messageUid, flags: r.flags.filter((f) => f !== '\\Deleted'), idate: r.idate })),
  );
  const removedEntries = expungeMessages(ctx, from, [...moved.map((r) => r.messageUid), ...result.notFound]);
  ctx.publish(from, removedEntries.map((e) => ({ ...e, ignore: sessionId })));
  leaveOtherFolders(ctx, [from, to], moved.map((r) => r.messageUid));
  ctx.publish(
    to,
    assigned.map((a): FolderChange => ({ command: 'EXISTS', uid: a.uid, modseq: a.modseq })),
  );
  const destByMessage = new Map(assigned.map((a) => [a.messageUid, a.uid]));
  return {
    uidValidity: ctx.store.folderState(ctx.account, to).uidValidity,
    sourceUids: moved.map((r) => r.uid),
    destinationUids: moved.map((r) => destByMessage.get(r.messageUid) ?? 0),
    expunged: removedEntries.map((e) => e.uid),
  };
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
