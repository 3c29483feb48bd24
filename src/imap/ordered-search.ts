import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { perAccountCache } from './message-derived-cache';
import { collectAfter } from '../util/memory';
import { keptOrderings } from './kept-orderings';
import { OrderingKeys } from './ordering-keys';
import { matchingRows, modseqsOf } from './search-handler';
import type { ModseqLookup, SearchQuery, Session, ThreadAlgorithm } from './engine';
import { sortMessages, type Sortable, type SortCriterion } from './sort';
import { orderedSubjectThreads, referencesThreads, type ThreadNode } from './thread';

/**
 * SORT and THREAD: a SEARCH, then its matches ordered from the store's rows and header
 * lines, without vendor requests once the folder is synced.
 */

/** Messages whose ordering keys are kept per account (a few hundred bytes each). */
const keptKeys = perAccountCache<OrderingKeys>(50_000);

/** The ordering keys of each message (in the order given), read from the store only for those not kept. */
async function orderingKeys(view: AccountView, messageUids: readonly string[]): Promise<OrderingKeys[]> {
  const kept = keptKeys(view);
  const out: Array<OrderingKeys | undefined> = messageUids.map((uid) => kept.get(uid));
  const missing = messageUids.filter((_, i) => !out[i]);
  if (missing.length) {
    const headers = await view.headers(missing);
    messageUids.forEach((uid, i) => {
      if (out[i]) return;
      const keys = new OrderingKeys(headers.get(uid) ?? []);
      if (headers.has(uid)) kept.set(uid, keys);
      out[i] = keys;
    });
    // the keys of a large folder, read at once, are promoted to the old generation: its collection
    // is made now, not during the next commands, which repeat the answer kept from this one
    collectAfter(missing.length);
  }
  return out as OrderingKeys[];
}

/** The rows matched, in mailbox order, as what SORT and THREAD read. */
async function sortables(view: AccountView, rows: readonly MessageRow[]): Promise<Sortable[]> {
  const keys = await orderingKeys(
    view,
    rows.map((r) => r.messageUid),
  );
  return rows.map((r, i) => ({ uid: r.uid, idate: r.idate, size: r.size, keys: keys[i] }));
}

const keptSorts = keptOrderings<readonly number[]>();
const keptThreads = keptOrderings<ThreadNode[]>();

export async function sortedSearch(
  view: AccountView,
  folder: ImapFolder,
  options: { query: SearchQuery; sort: SortCriterion[]; context?: object },
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ uidList: number[]; highestModseq: number; modseqs: ModseqLookup }> {
  const { rows, highestModseq } = await matchingRows(view, folder, options.query, session, recent, options.context);
  const criterion = options.sort.map((c) => `${c.reverse ? '-' : ''}${c.key}`).join(' ');
  const order = await keptSorts(view, folder, criterion, rows, async () =>
    sortMessages(await sortables(view, rows), options.sort),
  );
  // ESORT's MIN or MAX alone answers the MODSEQ of the messages it returns, as ESEARCH does
  return { uidList: [...order], highestModseq, modseqs: modseqsOf(rows) };
}

export async function threadedSearch(
  view: AccountView,
  folder: ImapFolder,
  options: { query: SearchQuery; algorithm: ThreadAlgorithm },
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ threads: ThreadNode[] }> {
  const { rows } = await matchingRows(view, folder, options.query, session, recent);
  const thread = options.algorithm === 'references' ? referencesThreads : orderedSubjectThreads;
  // the engine only reads the kept tree (imap-core's formatThreads)
  return {
    threads: await keptThreads(view, folder, options.algorithm, rows, async () => thread(await sortables(view, rows))),
  };
}
