import { hash } from 'node:crypto';
import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { orBranches, type SearchTerm } from './search';

/**
 * OBJECTID (RFC 8474) names, derived, never stored: the same input gives the same id on every
 * node and after every restart. A name is a letter saying what it names and 24 characters of
 * base64url of a SHA-256 (144 bits), within RFC 8474's 1*255 of letters, digits, "_" and "-".
 */
function objectId(kind: 'M' | 'T' | 'F', ...parts: string[]): string {
  // one call, no Hash object: a FETCH of EMAILID names every message it answers
  return kind + hash('sha256', parts.join('\0'), 'base64url').slice(0, 24);
}

/** EMAILID: the vendor's message id names one message in every folder and label view holding it. */
export function emailId(account: string, messageUid: string): string {
  return objectId('M', account, messageUid);
}

/** THREADID: from the vendor's thread id (a draft is a thread of its own); NIL for a message without one. */
export function threadId(account: string, vendorThreadId: string): string | null {
  return vendorThreadId ? objectId('T', account, vendorThreadId) : null;
}

/**
 * MAILBOXID: the folder's key with its UIDVALIDITY, so a folder whose UIDs start over (the
 * vendor recreated it) is another mailbox to the client, as RFC 8474 4 asks.
 */
export function mailboxId(account: string, folder: ImapFolder, uidValidity: number): string {
  const input = `${account}\0${folder.key}\0${uidValidity}`;
  let id = mailboxIds.get(input);
  if (!id) {
    id = objectId('F', account, folder.key, String(uidValidity));
    // a few names per account; a bound keeps a daemon of many accounts from growing it without end
    if (mailboxIds.size >= maxMailboxIds) mailboxIds.clear();
    mailboxIds.set(input, id);
  }
  return id;
}

/** MAILBOXIDs made, by their input: every SELECT and STATUS names one, a hash each time otherwise. */
const mailboxIds = new Map<string, string>();
const maxMailboxIds = 10_000;

/** The query's EMAILID and THREADID terms, at any depth. */
function objectIdTerms(query: readonly SearchTerm[]): SearchTerm[] {
  return query.flatMap((t) =>
    t.key === 'emailid' || t.key === 'threadid'
      ? [t]
      : t.key === 'not'
        ? objectIdTerms([t.value as SearchTerm])
        : t.key === 'or'
          ? orBranches(t).flatMap(objectIdTerms)
          : [],
  );
}

/**
 * SEARCH EMAILID/THREADID (RFC 8474 6): each such term becomes a UID term naming the rows it
 * matches, so the rest of the search evaluates it as any other. Thread ids are read only when
 * a THREADID term is there.
 */
export async function resolveObjectIdTerms(
  view: AccountView,
  query: readonly SearchTerm[],
  rows: readonly MessageRow[],
): Promise<SearchTerm[]> {
  const terms = objectIdTerms(query);
  if (!terms.length) return [...query];
  const threads = terms.some((t) => t.key === 'threadid')
    ? await view.threadIds(rows.map((r) => r.messageUid))
    : new Map<string, string>();
  const idOf = (key: string, row: MessageRow) =>
    key === 'emailid'
      ? emailId(view.account, row.messageUid)
      : threadId(view.account, threads.get(row.messageUid) ?? '');
  const resolve = (t: SearchTerm): SearchTerm => {
    if (t.key === 'emailid' || t.key === 'threadid')
      return { key: 'uid', value: rows.filter((r) => idOf(t.key, r) === String(t.value)).map((r) => r.uid) };
    if (t.key === 'not') return { ...t, value: resolve(t.value as SearchTerm) };
    if (t.key === 'or') return { ...t, value: orBranches(t).map((branch) => branch.map(resolve)) };
    return t;
  };
  return query.map(resolve);
}
