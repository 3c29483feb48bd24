import type { FolderChange } from './changes';
import { isLocalMessage, type MessageRow } from '../store';
import { diffVendorFlags, isEmptyDiff, keepReadOnlyFlags, type FlagDiff } from './flags';
import { expungeMessages, type SyncContext } from './folder-sync';
import { propagateMessageFlags } from './labels';

export type FlagAction = 'set' | 'add' | 'remove';

export interface FlagUpdateResult {
  /** Messages whose flags changed, with their new state. */
  updated: Array<{ uid: number; flags: string[]; modseq: number }>;
  /** First vendor failure, if some changes could not be applied (those messages are unchanged). */
  error?: unknown;
}

function applyAction(current: readonly string[], action: FlagAction, flags: string[]): string[] {
  const lower = (f: string) => f.toLowerCase();
  if (action === 'set') return [...new Map(flags.map((f) => [lower(f), f])).values()];
  if (action === 'add') return [...current, ...flags.filter((f) => !current.some((c) => lower(c) === lower(f)))];
  return current.filter((c) => !flags.some((f) => lower(f) === lower(c)));
}

/** Vendor calls needed for a set of diffs, grouped so identical changes share one bulk call. */
function planCalls(
  diffs: Array<{ row: MessageRow; diff: FlagDiff }>,
): Array<{ ids: string[]; kind: 'flag' | 'label'; payload: string }> {
  const groups = new Map<string, string[]>();
  const add = (key: string, id: string) => groups.set(key, [...(groups.get(key) ?? []), id]);
  for (const { row, diff } of diffs) {
    if (Object.keys(diff.change).length) add(`flag\u0000${JSON.stringify(diff.change)}`, row.messageUid);
    for (const l of diff.addLabels) add(`label\u0000${JSON.stringify({ add: [l] })}`, row.messageUid);
    for (const l of diff.removeLabels) add(`label\u0000${JSON.stringify({ remove: [l] })}`, row.messageUid);
  }
  return [...groups].map(([key, ids]) => {
    const [kind, payload] = key.split('\u0000');
    return { ids, kind: kind as 'flag' | 'label', payload };
  });
}

export async function applyFlagUpdate(
  ctx: SyncContext & { folder: string },
  rows: MessageRow[],
  action: FlagAction,
  flags: string[],
  sessionId?: string,
): Promise<FlagUpdateResult> {
  const targets = rows.map((row) => {
    const next = keepReadOnlyFlags(row.flags, applyAction(row.flags, action, flags));
    return { row, next, diff: diffVendorFlags(row.flags, next) };
  });
  const needsVendor = targets.filter((t) => !isEmptyDiff(t.diff) && !isLocalMessage(t.row.messageUid));
  // ids whose every vendor call succeeded; others keep their old flags
  const failed = new Set<string>();
  const gone = new Set<string>();
  let error: unknown;
  for (const call of planCalls(needsVendor)) {
    const ids = call.ids.filter((id) => !failed.has(id));
    if (!ids.length) continue;
    try {
      const result =
        call.kind === 'flag'
          ? await ctx.api.setFlags(ids, JSON.parse(call.payload))
          : await ctx.api.label(ids, JSON.parse(call.payload));
      for (const id of result.notFound) gone.add(id);
    } catch (err) {
      error ??= err;
      for (const id of ids) failed.add(id);
    }
  }
  const updated: FlagUpdateResult['updated'] = [];
  // one commit for the whole STORE, however many messages it touched
  ctx.store.atomically(() => {
    const entries: FolderChange[] = [];
    const changed = new Map<string, string[]>();
    for (const { row, next } of targets) {
      if (failed.has(row.messageUid) || gone.has(row.messageUid)) continue;
      if (next.length === row.flags.length && next.every((f) => row.flags.includes(f))) continue;
      const modseq = ctx.store.setFlags(ctx.account, ctx.folder, row.uid, next);
      updated.push({ uid: row.uid, flags: next, modseq });
      changed.set(row.messageUid, next);
      entries.push({ command: 'FETCH', uid: row.uid, flags: next, modseq, ignore: sessionId });
    }
    // the vendor says these no longer exist: drop them so every session sees the EXPUNGE
    entries.push(...expungeMessages(ctx, ctx.folder, [...gone]));
    ctx.publish(ctx.folder, entries);
    // other folders and label views holding the same messages show the change too
    propagateMessageFlags(ctx, ctx.folder, changed);
  });
  return { updated, error };
}
