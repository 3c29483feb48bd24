import type { MessageRow } from '../store';
import type { LabelChange, WriteResult } from './connector';
import { isLocalFlag, labelToKeyword } from './flags';
import type { SyncContext } from './sync-context';
import { type CopyOutcome, copyOutcome, placed } from './organize';
import { requireVendorMessages } from './refusal';
import { requireSomeDone, settleWrite } from './settled-write';
import type { MessageFlagsSpread } from './state-updates';

/**
 * Labels as IMAP folders. Each vendor label is a view `Labels/<label>` holding every message
 * that carries it, in whatever folder the message lives; the view has its own UID map (keyed
 * by labelKey) and is synced by listing the label's messages (connector.ts). COPY into a view
 * adds the label, EXPUNGE inside one removes it; the vendor confirms before the view changes.
 * Message-wide state (\Seen, \Flagged, $Important, label keywords) changed in one folder is
 * shown at once in every other folder and view holding the same message (StateApplier).
 */

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

/** A message's flags after a label change: the keywords of labels taken off go, those of labels added come. */
export function relabelledFlags(flags: readonly string[], change: LabelChange): string[] {
  const off = (change.remove ?? []).reduce((f, label) => withKeyword(f, label, false), [...flags]);
  return (change.add ?? []).reduce((f, label) => withKeyword(f, label, true), off);
}

/** COPY into a label view: the vendor adds the label, then the view numbers the messages. */
export async function addLabel(
  ctx: SyncContext,
  sourceKey: string,
  rows: MessageRow[],
  view: LabelView,
): Promise<CopyOutcome> {
  const targets = requireVendorMessages(rows, 'labelled');
  const ids = targets.map((r) => r.messageUid);
  const result = requireSomeDone(
    await settleWrite(
      ctx.vendor,
      ids,
      () => ctx.vendor.label(ids, { add: [view.label] }),
      (m) => m.labels.includes(view.label),
    ),
  );
  const done = new Set(result.done);
  const labelled = targets.filter((r) => done.has(r.messageUid));
  const next = new Map(labelled.map((r) => [r.messageUid, withKeyword(r.flags, view.label, true)]));
  const changed = labelled.filter((r) => next.get(r.messageUid)!.length !== r.flags.length);
  // the source rows show the new keyword too; the view gets the message-wide flags only
  // (messages that already carried the label keep their UID in the view)
  ctx.state.apply(
    { type: 'flags', folder: sourceKey, rows: changed.map((r) => ({ uid: r.uid, flags: next.get(r.messageUid)! })) },
    { type: 'removed', folder: sourceKey, messageUids: result.notFound },
    placed(view.key, labelled, (r) => next.get(r.messageUid)!.filter((f) => !isLocalFlag(f))),
    { type: 'spread', from: sourceKey, flags: next },
  );
  return copyOutcome(ctx, view.key, labelled);
}

/** The vendor removes the label; the update that shows it on the other rows of the messages. */
async function unlabel(
  ctx: SyncContext,
  view: LabelView,
  rows: MessageRow[],
): Promise<{ result: WriteResult; spread: MessageFlagsSpread }> {
  const ids = rows.map((r) => r.messageUid);
  const result = requireSomeDone(
    await settleWrite(
      ctx.vendor,
      ids,
      () => ctx.vendor.label(ids, { remove: [view.label] }),
      (m) => !m.labels.includes(view.label),
    ),
  );
  const done = new Set(result.done);
  const flags = new Map(
    rows.filter((r) => done.has(r.messageUid)).map((r) => [r.messageUid, withKeyword(r.flags, view.label, false)]),
  );
  return { result, spread: { type: 'spread', from: view.key, flags } };
}

/** The vendor removes the label; the other rows of the messages lose its keyword. */
export async function dropLabel(ctx: SyncContext, view: LabelView, rows: MessageRow[]): Promise<void> {
  ctx.state.apply((await unlabel(ctx, view, rows)).spread);
}

/** EXPUNGE (or MOVE to another label) in a label view: the vendor removes the label, then the view drops the messages. */
export async function removeLabel(
  ctx: SyncContext,
  view: LabelView,
  rows: MessageRow[],
  sessionId?: string,
): Promise<number[]> {
  if (!rows.length) return [];
  const { result, spread } = await unlabel(ctx, view, requireVendorMessages(rows, 'unlabelled'));
  const applied = ctx.state.apply(spread, {
    type: 'removed',
    folder: view.key,
    messageUids: [...result.done, ...result.notFound],
    cause: sessionId,
  });
  return applied.of(view.key, 'EXPUNGE').map((c) => c.uid);
}
