import type { LabelChange } from './connector';
import { labelKey } from './label-key';
import { relabelledFlags } from './labels';
import type { MailMessage } from './message';
import { Refusal } from './refusal';
import { settleWrite } from './settled-write';
import type { SyncContext } from './sync-context';

/**
 * A change to every message carrying a label, at the vendor: how RENAME and DELETE of a label
 * folder are done where the API has no label command of its own (assumption A29). The messages
 * are listed by label (A22) and changed one request at a time: 20 label commands of 50 ids
 * (spec section 8, A6), through the same limits as every other request.
 */

/** Ids one request carries. A failure stops the walk between requests. */
const idsPerRequest = 20 * 50;

/** What to do to one label, and how a message read back shows it was done. */
export interface Relabel {
  verb: 'RENAME' | 'DELETE';
  label: string;
  change: LabelChange;
  applied: (m: MailMessage) => boolean;
  /** The label folder's path, for the client. */
  path: string;
}

/** How it ended: messages changed (null: unknown), and why it stopped early (null: it did not). */
export interface Outcome {
  changed: number | null;
  stopped: unknown;
}

/**
 * Applies the change to every message carrying the label, and shows each request's outcome in
 * the local state at once. A lost answer is settled by reading the messages back; any failure
 * stops the walk, and the label is listed again to tell the client how many messages still
 * carry it. Never throws: the caller decides what a stop leaves behind.
 */
export async function relabel(ctx: SyncContext, r: Relabel): Promise<Outcome> {
  let ids: string[];
  try {
    ids = await labelled(ctx, r.label);
  } catch (err) {
    return { changed: 0, stopped: err };
  }
  let changed = 0;
  for (let at = 0; at < ids.length; at += idsPerRequest) {
    const part = ids.slice(at, at + idsPerRequest);
    const settled = await settleWrite(
      ctx.vendor,
      part,
      () => ctx.vendor.label(part, r.change, 'write'),
      r.applied,
    ).catch((err: unknown) => ({ error: err, done: [] }));
    if (settled.error) return stopped(ctx, r, ids, part, settled.error);
    show(ctx, r, settled.done);
    changed += settled.done.length;
  }
  return { changed, stopped: null };
}

/** The outcome after a failed request, once the vendor's own listing says what is left. */
async function stopped(ctx: SyncContext, r: Relabel, ids: string[], part: string[], error: unknown): Promise<Outcome> {
  const why = (error as Error)?.message ?? String(error);
  let left: Set<string>;
  try {
    left = new Set(await labelled(ctx, r.label));
  } catch {
    const unknown = `${r.verb} of ${r.path} stopped (${why}) and the mail vendor could not say how far it got; ${r.verb} again to finish`;
    return { changed: null, stopped: new Refusal('unavailable', unknown) };
  }
  // messages of the failed request the vendor did change (its answer for them was lost)
  show(
    ctx,
    r,
    part.filter((id) => !left.has(id)),
  );
  const changed = ids.filter((id) => !left.has(id)).length;
  const refusal = new Refusal(
    'unavailable',
    `${r.verb} of ${r.path} stopped (${why}): ${changed} of ${ids.length} messages are done, ${left.size} still carry the label; ${r.verb} again to finish`,
  );
  return { changed, stopped: refusal };
}

/** Every message carrying the label, as the vendor lists it now. */
async function labelled(ctx: SyncContext, label: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await ctx.vendor.listMessages({ label }, cursor, 'write');
    ids.push(...page.ids);
    cursor = page.nextCursor;
  } while (cursor);
  return [...new Set(ids)];
}

/** The messages left the label's folder; their other rows show the label keywords as they are now. */
function show(ctx: SyncContext, r: Relabel, messageUids: string[]): void {
  if (!messageUids.length) return;
  const flags = new Map<string, readonly string[]>();
  for (const { row } of ctx.store.rowsEverywhere(ctx.account, messageUids))
    if (!flags.has(row.messageUid)) flags.set(row.messageUid, relabelledFlags(row.flags, r.change));
  ctx.state.apply(
    { type: 'removed', folder: labelKey(r.label), messageUids },
    { type: 'spread', from: labelKey(r.label), flags },
  );
}
