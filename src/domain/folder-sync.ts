import { describePool, type MetadataRecord } from '../mime';
import { isLocalMessage } from '../store';
import type { Lane, ListScope } from './connector';
import { syncLanes } from './lanes';
import { collectAfter } from '../util/memory';
import { mergeFlags, vendorFlags } from './flags';
import { sameFlags } from './state-applier';
import { placed } from './organize';
import type { MessagesAdded, StateUpdate } from './state-updates';
import { inScope } from './mailbox-map';
import type { SyncContext, SyncMode } from './sync-context';
import type { MailMessage } from './message';
import { SummaryKeeper } from './summary-keeper';

/**
 * Brings one folder of the local state in line with the vendor.
 *  - incremental: newest listMessages pages until a page holds no unknown message, new
 *    messages fetched (body included: sizes and BODYSTRUCTURE need it) and given the next
 *    UIDs in arrival order, plus a flag refresh of the most recent messages (one request);
 *  - full: every page, so removals and flag changes anywhere in the folder are seen too.
 * Every change goes through the account's StateApplier, so NOOP/IDLE sessions hear about it.
 */

/** A synced view: its key in the store and journal, and what listMessages lists for it. */
export interface SyncTarget {
  key: string;
  scope: ListScope;
}

/** Flags of this many most recent messages are re-read on every incremental poll: one request. */
const recentFlagWindow = 1000;

/**
 * Fetched batches (a list page's new messages each) that may wait for their description at
 * once: each holds its messages, bodies included, until described and stored. When describing
 * falls behind (a loaded machine, one describe worker), listing waits for it instead of
 * holding the rest of the folder; describing then sets the sync's pace either way. Eight, not
 * four: in the first half second of a cold sync the worker is still loading and its code not
 * yet optimized, and with four the listing stopped for 40-140 ms at the sixth answer, which
 * delayed every later request as much (the vendor's window counts from the answers).
 */
const batchesAwaitingDescription = 8;

/** A message to number: what assignUids needs, without keeping bodies in memory. */
interface Arrival {
  messageUid: string;
  receivedAt: string;
  flags: string[];
  /** Its stored size, once described and stored: numbering then need not look it up. */
  size?: number;
}

/** Arrival order: arrival time, then id for ties. */
function byArrival(a: Arrival, b: Arrival): number {
  return a.receivedAt.localeCompare(b.receivedAt) || a.messageUid.localeCompare(b.messageUid);
}

/** Fetched messages: what numbering needs at once, and their description and caching under way. */
interface Received {
  /** In arrival order (byArrival). */
  arrivals: Arrival[];
  cached: Promise<void>;
}

/** A fetched batch; `later`: its messages composed once the listing is done (see fetchBatch). */
interface FetchedBatch extends Received {
  later: Received | null;
}

/**
 * Starts describing and caching the messages that are (still) in the folder: `messages`, or
 * when given, `composed` (the same messages once composed, see LaterMessages). Only what
 * numbering needs is kept, so a 100k-message sync never holds all bodies at once.
 */
function received(
  ctx: SyncContext,
  target: SyncTarget,
  keeper: SummaryKeeper,
  messages: MailMessage[],
  composed?: Promise<MailMessage[]>,
): Received {
  const arrived = messages.filter((m) => inScope(m, target.scope));
  const arrivals: Arrival[] = arrived.map((m) => ({
    messageUid: m.id,
    receivedAt: m.receivedAt,
    flags: vendorFlags(m),
  }));
  // described in worker threads: listing goes on meanwhile (see mime/describe-pool.ts)
  const described = composed
    ? composed.then((list) => describePool().describe(list.filter((m) => inScope(m, target.scope))))
    : describePool().describe(arrived);
  const cached = described.then((records) => {
    storeRecords(ctx, records);
    keeper.stored(records);
    const sizes = new Map(records.map((r) => [r.messageUid, r.size]));
    for (const a of arrivals) a.size = sizes.get(a.messageUid);
  });
  cached.catch(() => undefined); // awaited by the sync; never an unhandled rejection meanwhile
  // sorted while the next page is on its way: the numbering after the last page then only
  // merges these runs (arrivalsUpdate), which the last page's answer would otherwise wait for
  return { arrivals: arrivals.sort(byArrival), cached };
}

/**
 * Fetches the messages of `ids`. Those whose composing downloads attachments (message/* parts)
 * come once `listed` settles: the list pages form a chain, one request after another, that
 * fills the vendor's window of 15 requests a second, so a download among them delays every
 * later request of the chain by a place in the window; after the chain's last request, none.
 */
async function fetchBatch(
  ctx: SyncContext,
  target: SyncTarget,
  keeper: SummaryKeeper,
  ids: string[],
  lane: Lane,
  listed: Promise<void>,
): Promise<FetchedBatch> {
  const { messages, later } = await ctx.vendor.getMessages(ids, 'content', lane, listed);
  const rest = later ? received(ctx, target, keeper, later.messages, later.composed) : null;
  return { ...received(ctx, target, keeper, messages), later: rest };
}

/** Stores described messages; one that could not be converted is stored as its placeholder, and said so. */
function storeRecords(ctx: SyncContext, records: MetadataRecord[]): void {
  for (const r of records.filter((r) => r.unconvertible))
    ctx.logger.warn(
      { account: ctx.account, message: r.messageUid, err: r.unconvertible },
      'message could not be converted; a placeholder is served until a full sync converts it',
    );
  ctx.store.putMetadataRecords(ctx.account, records);
  // durable as the sync goes (flushed off the event loop while the next pages come): the flush
  // a client's SELECT waits for at the end then covers the last batches, not the whole folder
  ctx.store.committed().catch(() => undefined);
}

/**
 * Messages served as placeholders are converted again at a full sync. A UID's bytes never
 * change, so a message converted now leaves under its old UID and comes back under a new one,
 * in every folder and label view holding it.
 */
async function convertPlaceholders(ctx: SyncContext, ids: string[]): Promise<void> {
  const placeholders = ctx.store.unconvertible(ctx.account, ids);
  if (!placeholders.length) return;
  const { messages } = await ctx.vendor.getMessages(placeholders, 'content', 'sync');
  const converted = (await describePool().describe(messages)).filter((r) => !r.unconvertible);
  if (!converted.length) return;
  const convertedIds = converted.map((r) => r.messageUid);
  const rows = ctx.store.rowsEverywhere(ctx.account, convertedIds);
  ctx.store.putMetadataRecords(ctx.account, converted);
  ctx.forgetContent(convertedIds);
  const folders = new Set(rows.map((r) => r.folder));
  ctx.state.apply(
    ...[...folders].flatMap((folder): StateUpdate[] => {
      const here = rows.filter((r) => r.folder === folder).map((r) => r.row);
      return [{ type: 'removed', folder, messageUids: here.map((r) => r.messageUid) }, placed(folder, here)];
    }),
  );
  ctx.logger.info({ account: ctx.account, messages: convertedIds.length }, 'placeholders converted');
}

/**
 * A folder's listing and what it fetched: `arrivals` as soon as the last fetch answered, the
 * downloads' messages included; `cached` once the fetched messages are described and stored,
 * `laterCached` once those whose composing waited for downloads are too.
 */
interface Listing {
  listed: Set<string>;
  complete: boolean;
  arrivals: Arrival[];
  cached: Promise<unknown>;
  laterCached: Promise<unknown>;
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
  keeper: SummaryKeeper,
): Promise<Listing> {
  const listed = new Set<string>();
  // the attachment downloads of fetched messages wait for the last page (fetchBatch)
  let endListing: () => void = () => undefined;
  const listingEnded = new Promise<void>((resolve) => {
    endListing = resolve;
  });
  const fetches: Array<Promise<FetchedBatch>> = [];
  // fetched or being fetched, and not yet stored (settled either way: errors are seen below)
  const awaiting: Array<Promise<unknown>> = [];
  let batch: string[] = [];
  const flush = () => {
    if (batch.length) {
      // a worker loads while the vendor answers, instead of after the answer
      describePool().prepare(batch.length);
      const fetched = fetchBatch(ctx, target, keeper, batch, syncLanes[mode], listingEnded);
      fetches.push(fetched);
      awaiting.push(fetched.then((b) => b.cached).catch(() => undefined));
    }
    batch = [];
  };
  let complete = false;
  let listError: unknown = null;
  try {
    const listPage = (cursor: string | null) => {
      const pending = ctx.vendor.listMessages(target.scope, cursor, syncLanes[mode]);
      pending.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
      return pending;
    };
    let next = (mode === 'first' && ctx.firstPage(target.scope)) || listPage(null);
    for (;;) {
      const page = await next;
      const pageUids = page.ids;
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
      while (awaiting.length > batchesAwaitingDescription) await awaiting.shift();
    }
  } catch (err) {
    listError = err;
  }
  // settle every started fetch before returning or rethrowing: none may fail unobserved
  const settled = await Promise.allSettled(fetches);
  // downloads only once the last page's messages came: the window counts the vendor's requests
  // over a sliding second, so one that started beside the last get_messages would take a place
  // that request needs
  endListing();
  const fetched = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const later = fetched.flatMap((b) => (b.later ? [b.later] : []));
  const cached = Promise.all(fetched.map((b) => b.cached));
  const laterCached = Promise.all(later.map((b) => b.cached));
  // awaited by the sync one after the other; never an unhandled rejection meanwhile
  for (const p of [cached, laterCached]) p.catch(() => undefined);
  if (listError || failed) {
    await Promise.allSettled([cached, laterCached]); // nothing left writing when the error is handled
    throw listError ?? failed?.reason;
  }
  return { listed, complete, arrivals: [...fetched, ...later].flatMap((b) => b.arrivals), cached, laterCached };
}

/**
 * New messages get the next UIDs in arrival order. `arrivals`: batches each in that order, one
 * after another; the sort finds those runs and merges them (V8 sorts with TimSort), a few
 * milliseconds for 10,000 messages where sorting them from scratch took 10-50.
 */
function arrivalsUpdate(folder: string, arrivals: Arrival[], announce: boolean): MessagesAdded {
  arrivals.sort(byArrival);
  const messages = arrivals.map((a) => ({
    messageUid: a.messageUid,
    flags: a.flags,
    idate: new Date(a.receivedAt),
    size: a.size,
  }));
  return { type: 'added', folder, messages, announce };
}

/**
 * Re-reads vendor flags of `ids` and applies the differences: to this folder, and message-wide
 * flags to every other folder and view holding the messages. Messages the vendor no longer has
 * here leave the folder.
 */
async function refreshFlags(ctx: SyncContext, target: SyncTarget, ids: string[], lane: Lane): Promise<number> {
  const folder = target.key;
  if (!ids.length) return 0;
  const { messages, notFound } = await ctx.vendor.getMessages(ids, 'metadata', lane);
  // rows read after the answer: a STORE that finished meanwhile is not undone
  const rows = new Map(ctx.store.rowsByMessageUid(ctx.account, folder, ids).map((r) => [r.messageUid, r]));
  const changed: Array<{ uid: number; flags: readonly string[] }> = [];
  const spread = new Map<string, readonly string[]>();
  const gone = [...notFound];
  for (const m of messages) {
    const row = rows.get(m.id);
    if (!row) continue;
    if (!inScope(m, target.scope)) {
      gone.push(m.id);
      continue;
    }
    const flags = mergeFlags(vendorFlags(m), row.flags);
    if (sameFlags(flags, row.flags)) continue;
    changed.push({ uid: row.uid, flags });
    spread.set(row.messageUid, flags);
  }
  const applied = ctx.state.apply(
    { type: 'flags', folder, rows: changed },
    { type: 'spread', from: folder, flags: spread },
    { type: 'removed', folder, messageUids: gone },
  );
  return applied.of(folder).length;
}

export async function syncFolder(ctx: SyncContext, target: SyncTarget, mode: SyncMode): Promise<void> {
  const release = describePool().hold();
  const keeper = new SummaryKeeper(ctx);
  let stored = 0;
  try {
    stored = await syncListed(ctx, target, mode, keeper);
  } finally {
    release();
    keeper.ended();
  }
  // last: what the sync leaves behind after it (the downloads' messages stored, rows replaced
  // in the folder's cached list) would otherwise stay in an idle daemon's heap
  collectAfter(stored);
}

/** The listing's `cached`; when that fails, once `laterCached` has settled too. */
async function fetchedCached(listing: Listing): Promise<void> {
  await listing.cached.catch(async (err: unknown) => {
    await Promise.allSettled([listing.laterCached]); // nothing left writing when the error is handled
    throw err;
  });
}

/** Returns how many messages it fetched and stored. */
async function syncListed(
  ctx: SyncContext,
  target: SyncTarget,
  mode: SyncMode,
  keeper: SummaryKeeper,
): Promise<number> {
  const folder = target.key;
  // local drafts are not the vendor's: never listed there, never expunged by a sync
  const rows = ctx.store.listMessages(ctx.account, folder).filter((r) => !isLocalMessage(r.messageUid));
  const known = new Set(rows.map((r) => r.messageUid));
  const listing = await listAndFetch(ctx, target, mode, known, keeper);
  const { listed, complete, arrivals } = listing;
  let changes = arrivals.length;
  if (mode === 'first') {
    // nobody sees this listing before the sync ends: number while the last batches are
    // described and the downloads' messages come
    ctx.state.apply(arrivalsUpdate(folder, arrivals, false));
    await fetchedCached(listing);
    await listing.laterCached;
  } else {
    // announced only once cached: a session's FETCH after the EXISTS finds every message described
    await fetchedCached(listing);
    await listing.laterCached;
    ctx.state.apply(arrivalsUpdate(folder, arrivals, true));
  }
  if (complete && mode !== 'incremental') {
    const gone = [...known].filter((u) => !listed.has(u));
    changes += ctx.state.apply({ type: 'removed', folder, messageUids: gone }).of(folder).length;
    const still = [...known].filter((u) => listed.has(u));
    changes += await refreshFlags(ctx, target, still, syncLanes[mode]);
    await convertPlaceholders(ctx, still);
  } else {
    const recent = rows.slice(-recentFlagWindow).map((r) => r.messageUid);
    changes += await refreshFlags(ctx, target, recent, syncLanes[mode]);
  }
  if (changes) ctx.logger.debug({ account: ctx.account, folder, mode, changes }, 'folder synced');
  return arrivals.length;
}
