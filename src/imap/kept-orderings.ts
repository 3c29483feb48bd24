import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { perAccountCache } from './message-derived-cache';

/**
 * The last SORT and THREAD answers of each folder, kept with the messages they ordered. What
 * they order (a UID's message: its INTERNALDATE, size and header lines) never changes, so the
 * same messages under the same UIDs and criteria give the same answer; a change of the matches
 * (a message arrived, was expunged, or now matches another search) computes it again. Webmails
 * ask the same THREAD or SORT at every page view; Dovecot keeps a thread index for it.
 */

interface Kept<T> {
  uids: Uint32Array;
  messageUids: string[];
  answer: T;
}

/** Answers kept per account: a few folders' worth of criteria (each about the size of its folder's UID list). */
const keptAnswers = 16;

function sameMessages(kept: Kept<unknown>, rows: readonly MessageRow[]): boolean {
  if (kept.uids.length !== rows.length) return false;
  for (let i = 0; i < rows.length; i++) {
    if (kept.uids[i] !== rows[i].uid || kept.messageUids[i] !== rows[i].messageUid) return false;
  }
  return true;
}

/** A per-account store of answers computed from `rows` under a named criterion. */
export function keptOrderings<T>(): (
  view: AccountView,
  folder: ImapFolder,
  criterion: string,
  rows: readonly MessageRow[],
  compute: () => Promise<T>,
) => Promise<T> {
  const caches = perAccountCache<Kept<T>>(keptAnswers);
  return async (view, folder, criterion, rows, compute) => {
    const cache = caches(view);
    const key = `${folder.key}\u0000${criterion}`;
    const kept = cache.get(key);
    if (kept && sameMessages(kept, rows)) return kept.answer;
    const answer = await compute();
    cache.set(key, { uids: Uint32Array.from(rows, (r) => r.uid), messageUids: rows.map((r) => r.messageUid), answer });
    return answer;
  };
}
