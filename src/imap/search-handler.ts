import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { keptSearch } from './kept-searches';
import { resolveObjectIdTerms } from './object-ids';
import { rowTests } from './row-tests';
import { contextMatches } from './search-context';
import { visibleRows } from './visible-rows';
import type { ModseqLookup, SearchQuery, Session } from './engine';

/**
 * The session's view of the folder matching a query (SEARCH, SORT and THREAD), in UID order,
 * with the highest MODSEQ among them. BODY and TEXT go to the vendor search (assumption A4),
 * one call per distinct term, and its hits are checked on the stored text; everything else is
 * evaluated on the cached metadata without vendor requests. A search context (RETURN (UPDATE))
 * names its `context` (imap-core 121): its evaluations after the first are incremental
 * (./search-context.ts), and so are those of a search on header fields asked again
 * (./kept-searches.ts).
 */
export async function matchingRows(
  view: AccountView,
  folder: ImapFolder,
  query: SearchQuery,
  session: Session,
  recent: ReadonlySet<number>,
  context?: object,
): Promise<{ rows: MessageRow[]; highestModseq: number }> {
  const rows = visibleRows(view.allRows(folder), session.selected ? session.selected.uidList : []);
  const kept = context ?? keptSearch(view, folder, query);
  const matched = kept
    ? await contextMatches(view, folder, query, rows, recent, kept)
    : await allMatches(view, folder, query, rows, recent);
  let highestModseq = 0;
  for (const row of matched) highestModseq = Math.max(highestModseq, row.modseq);
  return { rows: matched, highestModseq };
}

/** The rows a query matches, every term evaluated on every row. */
async function allMatches(
  view: AccountView,
  folder: ImapFolder,
  rawQuery: SearchQuery,
  rows: readonly MessageRow[],
  recent: ReadonlySet<number>,
): Promise<MessageRow[]> {
  // ALL (as webmails SORT and THREAD) matches every row: no candidate is made of each
  if (rawQuery.every((t) => t.key === 'all')) return [...rows];
  const query = await resolveObjectIdTerms(view, rawQuery, rows);
  const test = (await rowTests(view, folder, query, rows, recent, 'content'))(query);
  return rows.filter(test);
}

/** SEARCH / UID SEARCH: the matching UIDs, each one's MODSEQ (for ESEARCH) and the highest. */
export async function searchMessages(
  view: AccountView,
  folder: ImapFolder,
  query: SearchQuery,
  session: Session,
  recent: ReadonlySet<number>,
  context?: object,
): Promise<{ uidList: number[]; highestModseq: number; modseqs: ModseqLookup }> {
  const { rows, highestModseq } = await matchingRows(view, folder, query, session, recent, context);
  return {
    uidList: rows.map((r) => r.uid),
    highestModseq,
    modseqs: modseqsOf(rows),
  };
}

/**
 * Each match's MODSEQ, looked up among the matches (ascending UIDs) when asked: only ESEARCH
 * (and ESORT) with MIN or MAX alone asks, for the messages it returns, so no map of every
 * match is made for each answer.
 */
export function modseqsOf(rows: readonly MessageRow[]): ModseqLookup {
  return {
    get(uid) {
      let lo = 0;
      let hi = rows.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (rows[mid].uid === uid) return rows[mid].modseq;
        if (rows[mid].uid < uid) lo = mid + 1;
        else hi = mid - 1;
      }
      return undefined;
    },
  };
}
