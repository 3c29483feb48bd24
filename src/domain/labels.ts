import type { MessageRow } from '../store';
import type { BulkResult } from '../upstream/api';
import type { FolderChange } from './changes';
import { isLocalFlag, labelToKeyword } from './flags';
import { expungeMessages, placeMessages, type SyncContext } from './folder-sync';
import type { CopyOutcome } from './organize';
import { requireVendorMessages } from './refusal';

/**
 * Labels as IMAP folders. Each vendor label is a view `Labels/<label>` holding every message
 * that carries it, in whatever folder the message lives; the view has its own UID map (keyed
 * by labelKey) and is synced through list_threads by label (assumption A22). COPY into a view
 * adds the label, EXPUNGE inside one removes it; the vendor confirms before the view changes.
 * Message-wide state (\Seen, \Flagged, $Important, label keywords) changed in one folder is
 * shown at once in every other folder and view holding the same message.
 */

const keyPrefix = '\u0001label:';

/** Store/journal key of a label view; cannot collide with a vendor folder name. */
export function labelKey(label: string): string {
  return keyPrefix + label;
}

export function labelOfKey(key: string): string | null {
  return key.startsWith(keyPrefix) ? key.slice(keyPrefix.length) : null;
}

/** A label view as the operations here need it. */
export interface LabelView {
  key: string;
  label: string;
}

function withKeyword(flags: readonly string[], label: string, on: boolean): string[] {
  const kw = labelToKeyword(label);
  if (!kw) return [...flags];
  const rest = flags.filter((f) => f.toLowerCase() !== kw.toLowerCase());
  return on ? [...rest, kw] : rest;
}

/**
 * Shows the message-wide part of `next` (flags that are not local to a folder) on every other
 * row of the same messages; rows of views of a label the message no longer carries leave.
 */
export function propagateMessageFlags(
  ctx: SyncContext,
  sourceKey: string,
  next: ReadonlyMap<string, readonly string[]>,
): void {
  if (next.size) ctx.store.atomically(() => propagate(ctx, sourceKey, next));
}

function propagate(ctx: SyncContext, sourceKey: string, next: ReadonlyMap<string, readonly string[]>): void {
  const byFolder = new Map<string, FolderChange[]>();
  const gone = new Map<string, string[]>();
  for (const { folder, row } of ctx.store.rowsEverywhere(ctx.account, [...next.keys()])) {
    if (folder === sourceKey) continue;
    const shared = (next.get(row.messageUid) ?? []).filter((f) => !isLocalFlag(f));
    const label = labelOfKey(folder);
    const kw = label === null ? null : labelToKeyword(label);
    if (kw && !shared.some((f) => f.toLowerCase() === kw.toLowerCase())) {
      gone.set(folder, [...(gone.get(folder) ?? []), row.messageUid]);
      continue;
    }
    const flags = [...shared, ...row.flags.filter(isLocalFlag)];
    if (flags.length === row.flags.length && flags.every((f) => row.flags.includes(f))) continue;
    const modseq = ctx.store.setFlags(ctx.account, folder, row.uid, flags);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), { command: 'FETCH', uid: row.uid, flags, modseq }]);
  }
  for (const [folder, ids] of gone)
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), ...expungeMessages(ctx, folder, ids)]);
  for (const [folder, entries] of byFolder) ctx.publish(folder, entries);
}

/** COPY into a label view: the vendor adds the label, then the view numbers the messages. */
export async function addLabel(
  ctx: SyncContext,
  sourceKey: string,
  rows: MessageRow[],
  view: LabelView,
): Promise<CopyOutcome> {
  const targets = requireVendorMessages(rows, 'labelled');
  const result = await ctx.api.label(
    targets.map((r) => r.messageUid),
    { add: [view.label] },
  );
  const done = new Set(result.done);
  const labelled = targets.filter((r) => done.has(r.messageUid));
  const next = new Map(labelled.map((r) => [r.messageUid, withKeyword(r.flags, view.label, true)]));
  // the source rows show the new keyword too; the view gets the message-wide flags only
  const sourceEntries: FolderChange[] = ctx.store.atomically(() =>
    labelled
      .filter((r) => next.get(r.messageUid)!.length !== r.flags.length)
      .map((r) => {
        const flags = next.get(r.messageUid)!;
        return {
          command: 'FETCH' as const,
          uid: r.uid,
          flags,
          modseq: ctx.store.setFlags(ctx.account, sourceKey, r.uid, flags),
        };
      }),
  );
  ctx.publish(sourceKey, [...sourceEntries, ...expungeMessages(ctx, sourceKey, result.notFound)]);
  // messages that already carried the label keep their UID in the view
  const placed = placeMessages(
    ctx,
    view.key,
    labelled.map((r) => ({
      messageUid: r.messageUid,
      flags: next.get(r.messageUid)!.filter((f) => !isLocalFlag(f)),
      idate: new Date(r.idate),
    })),
  );
  propagateMessageFlags(ctx, sourceKey, next);
  return {
    uidValidity: ctx.store.folderState(ctx.account, view.key).uidValidity,
    sourceUids: labelled.map((r) => r.uid),
    destinationUids: labelled.map((r) => placed.get(r.messageUid) ?? 0),
  };
}

/** The vendor removes the label; the other rows of the messages lose its keyword. */
export async function dropLabel(ctx: SyncContext, view: LabelView, rows: MessageRow[]): Promise<BulkResult> {
  const result = await ctx.api.label(
    rows.map((r) => r.messageUid),
    { remove: [view.label] },
  );
  const done = new Set(result.done);
  propagateMessageFlags(
    ctx,
    view.key,
    new Map(
      rows.filter((r) => done.has(r.messageUid)).map((r) => [r.messageUid, withKeyword(r.flags, view.label, false)]),
    ),
  );
  return result;
}

/** EXPUNGE (or MOVE to another label) in a label view: the vendor removes the label, then the view drops the messages. */
export async function removeLabel(
  ctx: SyncContext,
  view: LabelView,
  rows: MessageRow[],
  sessionId?: string,
): Promise<number[]> {
  if (!rows.length) return [];
  const result = await dropLabel(ctx, view, requireVendorMessages(rows, 'unlabelled'));
  const removed = expungeMessages(ctx, view.key, [...result.done, ...result.notFound]);
  ctx.publish(
    view.key,
    removed.map((c) => ({ ...c, ignore: sessionId })),
  );
  return removed.map((c) => c.uid);
}
