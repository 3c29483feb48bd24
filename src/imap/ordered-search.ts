import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { perAccountCache } from './message-derived-cache';
import { OrderingKeys } from './ordering-keys';
import { matchingRows, modseqsOf } from './search-handler';
import type { SearchQuery, Session, ThreadAlgorithm } from './engine';
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
  }
  return out as OrderingKeys[];
}

/** The matches of a search as what SORT and THREAD read, in mailbox order. */
async function sortables(
  view: AccountView,
  folder: ImapFolder,
  query: SearchQuery,
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ messages: Sortable[]; rows: MessageRow[]; highestModseq: number }> {
  const { rows, highestModseq } = await matchingRows(view, folder, query, session, recent);
  const keys = await orderingKeys(
    view,
    rows.map((r) => r.messageUid),
  );
  const messages = rows.map((r, i) => ({ uid: r.uid, idate: r.idate, size: r.size, keys: keys[i] }));
  return { messages, rows, highestModseq };
}

export async function sortedSearch(
  view: AccountView,
  folder: ImapFolder,
  options: { query: SearchQuery; sort: SortCriterion[] },
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ uidList: number[]; highestModseq: number; modseqs: ReadonlyMap<number, number> }> {
  const { messages, rows, highestModseq } = await sortables(view, folder, options.query, session, recent);
  // ESORT's MIN or MAX alone answers the MODSEQ of the messages it returns, as ESEARCH does
  return { uidList: sortMessages(messages, options.sort), highestModseq, modseqs: modseqsOf(rows) };
}

export async function threadedSearch(
  view: AccountView,
  folder: ImapFolder,
  options: { query: SearchQuery; algorithm: ThreadAlgorithm },
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ threads: ThreadNode[] }> {
  const { messages } = await sortables(view, folder, options.query, session, recent);
  return { threads: (options.algorithm === 'references' ? referencesThreads : orderedSubjectThreads)(messages) };
}
