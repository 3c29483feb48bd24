import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { perAccountCache } from './message-derived-cache';
import { OrderingKeys } from './ordering-keys';
import { searchMessages } from './search-handler';
import type { SearchQuery, Session, ThreadAlgorithm } from './engine';
import { sortMessages, type Sortable, type SortCriterion } from './sort';
import { orderedSubjectThreads, referencesThreads, type ThreadNode } from './thread';

/**
 * SORT and THREAD: a SEARCH, then its matches ordered from the store's rows and header
 * lines, without vendor requests once the folder is synced.
 */

/** Messages whose ordering keys are kept per account (a few hundred bytes each). */
const keptKeys = perAccountCache<OrderingKeys>(50_000);

/** The ordering keys of each message, read from the store only for those not kept. */
async function orderingKeys(view: AccountView, messageUids: string[]): Promise<Map<string, OrderingKeys>> {
  const kept = keptKeys(view);
  const out = new Map<string, OrderingKeys>();
  const missing: string[] = [];
  for (const uid of messageUids) {
    const keys = kept.get(uid);
    if (keys) out.set(uid, keys);
    else missing.push(uid);
  }
  if (missing.length)
    for (const [uid, headerLines] of await view.headers(missing)) {
      const keys = new OrderingKeys(headerLines);
      kept.set(uid, keys);
      out.set(uid, keys);
    }
  return out;
}

/** The matches of a search as what SORT and THREAD read, in mailbox order. */
async function sortables(
  view: AccountView,
  folder: ImapFolder,
  query: SearchQuery,
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ messages: Sortable[]; highestModseq: number; modseqs: ReadonlyMap<number, number> }> {
  const found = await searchMessages(view, folder, query, session, recent);
  const keys = await orderingKeys(
    view,
    found.rows.map((r) => r.messageUid),
  );
  const messages = found.rows.map((r) => ({
    uid: r.uid,
    idate: r.idate,
    size: r.size,
    keys: keys.get(r.messageUid) ?? new OrderingKeys([]),
  }));
  return { messages, highestModseq: found.highestModseq, modseqs: found.modseqs };
}

export async function sortedSearch(
  view: AccountView,
  folder: ImapFolder,
  options: { query: SearchQuery; sort: SortCriterion[] },
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ uidList: number[]; highestModseq: number; modseqs: ReadonlyMap<number, number> }> {
  const { messages, highestModseq, modseqs } = await sortables(view, folder, options.query, session, recent);
  // ESORT's MIN or MAX alone answers the MODSEQ of the messages it returns, as ESEARCH does
  return { uidList: sortMessages(messages, options.sort), highestModseq, modseqs };
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
