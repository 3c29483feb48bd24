import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { perAccountCache } from './message-derived-cache';
import { orBranches, type SearchTerm } from './search';

/**
 * Searches on what a message says (its header fields, its Date), kept per account and folder
 * as search contexts (./search-context.ts) so that asking again reads nothing of a message
 * already evaluated: what such a term says of a UID never changes, and only flag and MODSEQ
 * terms are evaluated again, on the messages whose MODSEQ moved. Clients ask the same search
 * again and again: a saved search or smart folder at every change, a filter bar at every
 * refresh. Dovecot answers them from its cache file; without this the bridge read and
 * compared every message's keys each time, which cost 3-23 ms on 10,000 messages, the most
 * before its code was optimized.
 */

/**
 * Searches kept per account, and the rows of their folders they may stand for together: a
 * context holds a reference to each row it evaluated and the UIDs matched, so 20 searches of a
 * 10,000-message folder fit, 2 of a 100,000-message one.
 */
const keptSearches = 32;
const keptRows = 200_000;

/**
 * Whether the query reads a message's header (HEADER, SUBJECT, FROM, ..., SENT*), nothing the
 * vendor answers (BODY, TEXT: its index may lag behind a message, so they are asked again) and
 * no \Recent (RECENT, NEW, OLD: each session has its own).
 */
function worthKeeping(query: readonly SearchTerm[]): boolean {
  let readsHeader = false;
  let notShared = false;
  const walk = (terms: readonly SearchTerm[]): void => {
    for (const t of terms) {
      if (t.key === 'header' || t.key === 'date') readsHeader = true;
      else if (t.key === 'body' || t.key === 'text') notShared = true;
      else if (t.key === 'flag' && String(t.value).toLowerCase() === '\\recent') notShared = true;
      else if (t.key === 'not') walk([t.value as SearchTerm]);
      else if (t.key === 'or') for (const branch of orBranches(t)) walk(branch);
    }
  };
  walk(query);
  return readsHeader && !notShared;
}

/** A query's terms as text: sets as their members, dates as ISO strings (toJSON). */
function queryText(query: readonly SearchTerm[]): string {
  return JSON.stringify(query, (_key, value: unknown) => (value instanceof Set ? [...value] : value));
}

interface Kept {
  context: object;
  /** The folder's rows when it was kept. */
  rows: number;
}

const contexts = perAccountCache<Kept>({
  max: keptSearches,
  maxSize: keptRows,
  sizeCalculation: (kept) => Math.max(1, kept.rows),
});

/**
 * The context object `query` is kept under for `folder` (the same at every call while kept),
 * or undefined for a query not worth keeping.
 */
export function keptSearch(view: AccountView, folder: ImapFolder, query: readonly SearchTerm[]): object | undefined {
  if (!worthKeeping(query)) return undefined;
  const kept = contexts(view);
  const key = `${folder.key}\u0000${queryText(query)}`;
  let found = kept.get(key);
  if (!found) {
    found = { context: {}, rows: view.allRows(folder).length };
    kept.set(key, found);
  }
  return found.context;
}
