import { isLocalMessage, type MessageRow } from '../store';
import type { FlagChange, LabelChange } from './connector';
import type { MailMessage } from './message';
import { diffVendorFlags, isEmptyDiff, keepReadOnlyFlags, mergeFlags, type FlagDiff, vendorFlags } from './flags';
import type { SyncContext } from './sync-context';
import { type Applied, settleWrite } from './settled-write';
import { sameFlags } from './state-applier';

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

type VendorCall =
  | { ids: string[]; kind: 'flag'; change: FlagChange }
  | { ids: string[]; kind: 'label'; change: LabelChange };

function flagsApplied(change: FlagChange): Applied {
  return (m) => Object.entries(change).every(([k, v]) => m[k as keyof FlagChange] === v);
}

function labelsApplied(change: LabelChange): Applied {
  return (m) =>
    (change.add ?? []).every((l) => m.labels.includes(l)) && (change.remove ?? []).every((l) => !m.labels.includes(l));
}

/**
 * A STORE's vendor calls: one flag call and one label call, over every message needing one. A
 * STORE gives each vendor field and each label one outcome for all its messages (the flags it
 * sets, adds or removes are the same for every message), so the union of the messages' changes
 * does to each message what its own change does: a field set to the value it has, a label added
 * that it has or removed that it lacks changes nothing (A5, A6). Grouped by each message's own
 * change instead, a STORE of random flags on many messages took one command per combination
 * (up to 10 in imaptest's mix), filling the 20 commands of a request that other sessions'
 * writes could share (write-batcher.ts). The one exception: a label added in one spelling to a
 * message carrying it in another (labels are exact strings, keywords are not: A29) would be
 * added there too, so such a message keeps a call of its own change.
 */
function planCalls(diffs: Array<{ row: MessageRow; diff: FlagDiff }>): VendorCall[] {
  const flagged = diffs.filter(({ diff }) => Object.keys(diff.change).length);
  const labelled = diffs.filter(({ diff }) => diff.addLabels.length || diff.removeLabels.length);
  const add = [...new Set(labelled.flatMap(({ diff }) => diff.addLabels))];
  const remove = [...new Set(labelled.flatMap(({ diff }) => diff.removeLabels))];
  // a message takes the shared label call unless a label it adds would land beside another spelling
  const fits = ({ row, diff }: { row: MessageRow; diff: FlagDiff }) =>
    add.every((l) => diff.addLabels.includes(l) || row.flags.includes(l));
  const own = labelled.filter((d) => !fits(d));
  const calls: VendorCall[] = [];
  if (flagged.length)
    calls.push({
      kind: 'flag',
      ids: flagged.map(({ row }) => row.messageUid),
      change: Object.assign({}, ...flagged.map(({ diff }) => diff.change)),
    });
  const shared = labelled.filter(fits);
  if (shared.length)
    calls.push({ kind: 'label', ids: shared.map(({ row }) => row.messageUid), change: labelChange(add, remove) });
  for (const { row, diff } of own)
    calls.push({ kind: 'label', ids: [row.messageUid], change: labelChange(diff.addLabels, diff.removeLabels) });
  return calls;
}

function labelChange(add: string[], remove: string[]): LabelChange {
  return { ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) };
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
  // every call at once: issued together they share one request (write-batcher.ts) instead of
  // waiting for one answer after another, each in a request of its own; a message whose call
  // fails keeps its old flags though another call for it succeeded, as the vendor said NO
  const settlements = await Promise.all(
    planCalls(needsVendor).map((call) =>
      call.kind === 'flag'
        ? settleWrite(ctx.vendor, call.ids, () => ctx.vendor.setFlags(call.ids, call.change), flagsApplied(call.change))
        : settleWrite(ctx.vendor, call.ids, () => ctx.vendor.label(call.ids, call.change), labelsApplied(call.change)),
    ),
  );
  // ids whose every vendor call succeeded; others keep their old flags
  const failed = new Set<string>();
  const gone = new Set<string>();
  let error: unknown;
  // the vendor's state of messages read back after a lost answer, the latest read last
  const vendorState = new Map<string, MailMessage>();
  for (const settled of settlements) {
    for (const id of settled.notFound) gone.add(id);
    for (const id of settled.failed) failed.add(id);
    error ??= settled.error;
    for (const m of settled.readBack) vendorState.set(m.id, m);
  }
  const changed = targets.filter(
    ({ row, next }) => !failed.has(row.messageUid) && !gone.has(row.messageUid) && !sameFlags(next, row.flags),
  );
  // a change the vendor did not take: the rows show what the vendor has, not what was asked
  const reverted = targets.flatMap(({ row }) => {
    const m = vendorState.get(row.messageUid);
    if (!m || !failed.has(row.messageUid)) return [];
    const flags = mergeFlags(vendorFlags(m), row.flags);
    return sameFlags(flags, row.flags) ? [] : [{ uid: row.uid, flags }];
  });
  // one commit for the whole STORE, however many messages it touched; the vendor says the
  // `gone` ones no longer exist, so every session sees their EXPUNGE; other folders and label
  // views holding the same messages show the change too
  const applied = ctx.state.apply(
    {
      type: 'flags',
      folder: ctx.folder,
      rows: changed.map(({ row, next }) => ({ uid: row.uid, flags: next })),
      cause: sessionId,
    },
    { type: 'removed', folder: ctx.folder, messageUids: [...gone] },
    { type: 'spread', from: ctx.folder, flags: new Map(changed.map(({ row, next }) => [row.messageUid, next])) },
    { type: 'flags', folder: ctx.folder, rows: reverted },
  );
  const stored = new Set(changed.map(({ row }) => row.uid));
  const updated = applied
    .of(ctx.folder, 'FETCH')
    .filter((c) => stored.has(c.uid))
    .map((c) => ({ uid: c.uid, flags: c.flags ?? [], modseq: c.modseq }));
  return { updated, error };
}
