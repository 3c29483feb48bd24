import type { Logger } from '../log';
import type { FolderChange } from './changes';
import { describePool } from '../mime';
import { isLocalMessage, type MailStore, type NewMessage } from '../store';
import type { Assumptions } from '../upstream/assumptions';
import type { ListScope, MailboxApi } from '../upstream/api';
import type { VendorMessage, VendorThread } from '../upstream/types';
import type { Lane } from '../upstream/rate-limiter';
import { syncLanes } from './lanes';
import { collectGarbage } from '../util/memory';
import { mergeFlags, vendorFlags } from './flags';

/**
 * Brings one folder of the SQLite state in line with the vendor.
 *  - incremental: newest list_threads pages until a page holds no unknown message, new
 *    messages fetched (body included: sizes and BODYSTRUCTURE need it) and given the next
 *    UIDs in arrival order, plus a flag refresh of the most recent messages (one request);
 *  - full: every page, so removals and flag changes anywhere in the folder are seen too.
 * Every change is journaled so NOOP/IDLE sessions hear about it.
 */

export interface SyncContext {
  account: string;
  api: MailboxApi;
  store: MailStore;
  assumptions: Assumptions;
  logger: Logger;
  publish(folder: string, entries: FolderChange[]): void;
}

/**
 * `first`: the first complete listing of a folder. It is a full sync whose new messages are not
 * journaled: every session that selects the folder waits for this listing and starts from its
 * result, so no session can need those EXISTS (a 100,000-message folder would otherwise fill
 * the journal with them).
 */
export type SyncMode = 'first' | 'full' | 'incremental';

/** A synced view: its key in the store and journal, and what list_threads lists for it. */
export interface SyncTarget {
  key: string;
  scope: ListScope;
}

/** Include list for messages whose MIME form is cached: body and attachment list, headers for spam/auth info. */
export const contentInclude = ['body', 'attachments', 'headers'];

/** Flags of this many most recent messages are re-read on every incremental poll: one request. */
const recentFlagWindow = 1000;

function threadUids(t: VendorThread, field: string): string[] {
  const uids = (t as unknown as Record<string, unknown>)[field];
  return Array.isArray(uids) ? (uids as string[]) : [t.last_message_uid];
}

/** Whether the vendor's view of `msg` still places it in the listed folder or label. */
function inScope(msg: Pick<VendorMessage, 'folders' | 'labels'>, scope: ListScope): boolean {
  if ('label' in scope) return (msg.labels ?? []).includes(scope.label);
  return msg.folders.some((f) => f.toLowerCase() === scope.folder.toLowerCase());
}

/** A message to number: what assignUids needs, without keeping bodies in memory. */
interface Arrival {
  messageUid: string;
  receivedAt: string;
  flags: string[];
}

/** A fetched batch: what numbering needs at once, and its description and caching under way. */
interface FetchedBatch {
  arrivals: Arrival[];
  cached: Promise<void>;
}

/**
 * Fetches the messages of `ids` that are (still) in the folder and starts describing and
 * caching them. Only what numbering needs is kept, so a 100k-message sync never holds all
 * bodies at once.
 */
async function fetchBatch(ctx: SyncContext, target: SyncTarget, ids: string[], lane: Lane): Promise<FetchedBatch> {
  const { messages } = await ctx.api.getMessages(ids, contentInclude, lane);
  const arrived = messages.filter((m) => inScope(m, target.scope));
  // described in worker threads: listing goes on meanwhile (see mime/describe-pool.ts)
  const cached = describePool()
    .describe(arrived)
    .then((records) => ctx.store.putMetadataRecords(ctx.account, records));
  cached.catch(() => undefined); // awaited by the sync; never an unhandled rejection meanwhile
  return {
    arrivals: arrived.map((m) => ({ messageUid: m.message_uid, receivedAt: m.received_at, flags: vendorFlags(m) })),
    cached,
  };
}

/**
 * Lists the folder (every page, or for an incremental sync until a page holds no unknown
 * message) and fetches unknown messages while listing goes on: a page's unknown messages are
 * asked for together with the next page, in the same request, so a folder costs about one
 * request per page and the last messages arrive right after the last page.
 */
async function listAndFetch(
  ctx: SyncContext,
  target: SyncTarget,
  mode: SyncMode,
  known: Set<string>,
): Promise<{ listed: Set<string>; complete: boolean; arrivals: Arrival[]; cached: Promise<unknown> }> {
  const field = ctx.assumptions.threadMessageUidsField;
  const listed = new Set<string>();
  const fetches: Array<Promise<FetchedBatch>> = [];
  let batch: string[] = [];
  const flush = () => {
    if (batch.length) fetches.push(fetchBatch(ctx, target, batch, syncLanes[mode]));
    batch = [];
  };
  let complete = false;
  let listError: unknown = null;
  try {
    const listPage = (cursor: string | null) => {
      const pending = ctx.api.listThreads(
        { ...target.scope, limit: ctx.assumptions.commands.listThreads.maxLimit, cursor },
        syncLanes[mode],
      );
      pending.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
      return pending;
    };
    let next = listPage(null);
    for (;;) {
      const page = await next;
      const pageUids = page.threads.flatMap((t) => threadUids(t, field));
      if (!page.nextCursor) complete = true;
      const last = complete || (mode === 'incremental' && pageUids.every((u) => known.has(u)));
      // the next page only needs this one's cursor: ask for it before anything else
      if (!last) next = listPage(page.nextCursor);
      for (const uid of pageUids) {
        if (listed.has(uid)) continue;
        listed.add(uid);
        if (!known.has(uid)) batch.push(uid);
      }
      // asked for in the same turn as the next page: both share one request (mailbox-client.ts)
      flush();
      if (last) break;
    }
  } catch (err) {
    listError = err;
  }
  // settle every started fetch before returning or rethrowing: none may fail unobserved
  const settled = await Promise.allSettled(fetches);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const batches = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const cached = Promise.all(batches.map((b) => b.cached));
  if (listError || failed) {
    await Promise.allSettled([cached]); // nothing left writing when the error is handled
    throw listError ?? failed?.reason;
  }
  return { listed, complete, arrivals: batches.flatMap((b) => b.arrivals), cached };
}

/** New messages get the next UIDs in arrival order (received_at, then id for ties). */
function numberArrivals(ctx: SyncContext, folder: string, arrivals: Arrival[]): FolderChange[] {
  arrivals.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.messageUid.localeCompare(b.messageUid));
  const assigned = ctx.store.assignUids(
    ctx.account,
    folder,
    arrivals.map((a) => ({ messageUid: a.messageUid, flags: a.flags, idate: new Date(a.receivedAt) })),
  );
  return assigned.map((a) => ({ command: 'EXISTS' as const, uid: a.uid, modseq: a.modseq }));
}

/** Re-reads vendor flags of `ids` and records differences. */
async function refreshFlags(ctx: SyncContext, target: SyncTarget, ids: string[], lane: Lane): Promise<FolderChange[]> {
  const folder = target.key;
  if (!ids.length) return [];
  const { messages, notFound } = await ctx.api.getMessages(ids, ctx.assumptions.metadataInclude, lane);
  const entries: FolderChange[] = [];
  const rows = new Map(ctx.store.rowsByMessageUid(ctx.account, folder, ids).map((r) => [r.messageUid, r]));
  ctx.store.atomically(() => {
    for (const m of messages) {
      const row = rows.get(m.message_uid);
      if (!row) continue;
      if (!inScope(m, target.scope)) {
        notFound.push(m.message_uid);
        continue;
      }
      const flags = mergeFlags(vendorFlags(m), row.flags);
      if (sameFlags(flags, row.flags)) continue;
      const modseq = ctx.store.setFlags(ctx.account, folder, row.uid, flags);
      entries.push({ command: 'FETCH', uid: row.uid, flags, modseq });
    }
  });
  return [...entries, ...expungeMessages(ctx, folder, notFound)];
}

/**
 * Gives the next UIDs of `folder` to messages placed there by this bridge (move, label), journals
 * the EXISTS, and returns the UID of every given message there (already present ones keep theirs).
 */
export function placeMessages(
  ctx: Pick<SyncContext, 'store' | 'account' | 'publish'>,
  folder: string,
  messages: NewMessage[],
): Map<string, number> {
  const assigned = ctx.store.assignUids(ctx.account, folder, messages);
  ctx.publish(
    folder,
    assigned.map((a): FolderChange => ({ command: 'EXISTS', uid: a.uid, modseq: a.modseq })),
  );
  const uids = messages.map((m) => m.messageUid);
  return new Map(ctx.store.rowsByMessageUid(ctx.account, folder, uids).map((r) => [r.messageUid, r.uid]));
}

export function expungeMessages(
  ctx: Pick<SyncContext, 'store' | 'account'>,
  folder: string,
  messageUids: string[],
): FolderChange[] {
  if (!messageUids.length) return [];
  return ctx.store
    .expunge(ctx.account, folder, messageUids)
    .map((r) => ({ command: 'EXPUNGE' as const, uid: r.uid, modseq: r.modseq }));
}

function sameFlags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}

/** A sync that stored this many messages is followed by a full garbage collection (util/memory.ts). */
const largeSync = 5000;

export async function syncFolder(ctx: SyncContext, target: SyncTarget, mode: SyncMode): Promise<void> {
  const release = describePool().hold();
  let stored = 0;
  try {
    stored = await syncListed(ctx, target, mode);
  } finally {
    release();
  }
  if (stored >= largeSync) collectGarbage();
}

/** Returns how many messages it fetched and stored. */
async function syncListed(ctx: SyncContext, target: SyncTarget, mode: SyncMode): Promise<number> {
  const folder = target.key;
  // local drafts are not the vendor's: never listed there, never expunged by a sync
  const rows = ctx.store.listMessages(ctx.account, folder).filter((r) => !isLocalMessage(r.messageUid));
  const known = new Set(rows.map((r) => r.messageUid));
  const { listed, complete, arrivals, cached } = await listAndFetch(ctx, target, mode, known);
  // numbering needs only the arrivals: it runs while the last batches are still being described
  const numbered = numberArrivals(ctx, folder, arrivals);
  // the sync ends with every message cached: a FETCH right after finds them all
  await cached;
  const entries = mode === 'first' ? [] : numbered;
  if (complete && mode !== 'incremental') {
    entries.push(
      ...expungeMessages(
        ctx,
        folder,
        [...known].filter((u) => !listed.has(u)),
      ),
    );
    entries.push(
      ...(await refreshFlags(
        ctx,
        target,
        [...known].filter((u) => listed.has(u)),
        syncLanes[mode],
      )),
    );
  } else {
    const recent = rows.slice(-recentFlagWindow).map((r) => r.messageUid);
    entries.push(...(await refreshFlags(ctx, target, recent, syncLanes[mode])));
  }
  if (entries.length)
    ctx.logger.debug({ account: ctx.account, folder, mode, changes: entries.length }, 'folder synced');
  ctx.publish(folder, entries);
  return arrivals.length;
}
