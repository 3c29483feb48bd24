import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import type { MessageKey } from '../mime/message-keys';
import { keysOf } from './kept-keys';
import { keptOrderings } from './kept-orderings';
import { OrderingKeys } from './ordering-keys';
import { matchingRows, modseqsOf } from './search-handler';
import type { ModseqLookup, SearchQuery, Session, ThreadAlgorithm } from './engine';
import { sortMessages, type Sortable, type SortCriterion, type SortKey } from './sort';
import { orderedSubjectThreads, referencesThreads, type ThreadNode } from './thread';

/**
 * SORT and THREAD: a SEARCH, then its matches ordered from the store's rows and the keys
 * stored with each message, reading only those the command compares, without vendor requests
 * once the folder is synced.
 */

/** The keys each sort criterion compares (arrival and size are the row's). */
const sortKeys: Readonly<Record<SortKey, readonly MessageKey[]>> = {
  arrival: [],
  size: [],
  date: ['sentDate'],
  subject: ['baseSubject', 'replyOrForward'],
  from: ['fromMailbox'],
  to: ['toMailbox'],
  cc: ['ccMailbox'],
  displayfrom: ['displayFrom'],
  displayto: ['displayTo'],
};

/** The keys each THREAD algorithm compares. */
const threadKeys: Readonly<Record<ThreadAlgorithm, readonly MessageKey[]>> = {
  orderedsubject: ['sentDate', 'baseSubject', 'replyOrForward'],
  references: ['sentDate', 'baseSubject', 'replyOrForward', 'messageId', 'parents'],
};

/** The rows matched, in mailbox order, as what SORT and THREAD read. */
async function sortables(
  view: AccountView,
  folder: ImapFolder,
  rows: readonly MessageRow[],
  keys: readonly MessageKey[],
): Promise<Sortable[]> {
  const read = keys.length
    ? await keysOf(
        view,
        folder,
        rows.map((r) => r.messageUid),
        keys,
      )
    : null;
  return rows.map((r) => ({
    uid: r.uid,
    idate: r.idate,
    size: r.size,
    keys: new OrderingKeys(read?.get(r.messageUid) ?? {}),
  }));
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
    sortMessages(
      await sortables(view, folder, rows, [...new Set(options.sort.flatMap((c) => sortKeys[c.key]))]),
      options.sort,
    ),
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
    threads: await keptThreads(view, folder, options.algorithm, rows, async () =>
      thread(await sortables(view, folder, rows, threadKeys[options.algorithm])),
    ),
  };
}
