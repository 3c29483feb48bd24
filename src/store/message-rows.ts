import type { MessageRow } from '../model/mail-rows';

/**
 * The rows of the messages table as MailStore reads them (its row text, flag column and \Seen
 * column) and the look-ups it makes in a folder's cached row list, sorted by UID.
 */

export type RawRow = [uid: number, messageUid: string, flags: string, modseq: number, idate: number, size: number];

export const rowColumns = 'uid, message_uid, flags, modseq, idate, size';

/** Flag lists by their column text: a mailbox has few distinct combinations. */
const flagLists = new Map<string, readonly string[]>();
const maxFlagLists = 10_000;

export function flagList(column: string): readonly string[] {
  let list = flagLists.get(column);
  if (!list) {
    list = Object.freeze(column ? column.split(' ') : []);
    if (flagLists.size < maxFlagLists) flagLists.set(column, list);
  }
  return list;
}

export function toRow(r: RawRow): MessageRow {
  return { uid: r[0], messageUid: r[1], flags: flagList(r[2]), modseq: r[3], idate: r[4], size: r[5] };
}

/** Flags are IMAP atoms (no spaces), so a space-joined column is exact and cheap to split. */
export function flagColumn(flags: readonly string[]): string {
  return [...new Set(flags.filter((f) => f && !/\s/.test(f)))].join(' ');
}

export function isSeen(flags: readonly string[]): number {
  return flags.some((f) => f.toLowerCase() === '\\seen') ? 1 : 0;
}

/**
 * A cached folder's counts, computed once per row list: every change replaces the list, and
 * SELECT and STATUS of a 10,000-message folder would otherwise count it in SQLite each time.
 */
const rowCounts = new WeakMap<readonly MessageRow[], { count: number; unseen: number }>();

export function countsOf(rows: readonly MessageRow[]): { count: number; unseen: number } {
  let counts = rowCounts.get(rows);
  if (!counts) {
    let seen = 0;
    for (const r of rows) seen += isSeen(r.flags);
    counts = { count: rows.length, unseen: rows.length - seen };
    rowCounts.set(rows, counts);
  }
  return counts;
}

/** Index of `uid` in rows sorted by uid, or -1. */
export function findUid(rows: readonly MessageRow[], uid: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].uid === uid) return mid;
    if (rows[mid].uid < uid) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Whether every UID is greater than the one before it. */
export function ascending(uids: readonly number[]): boolean {
  for (let i = 1; i < uids.length; i++) if (uids[i] <= uids[i - 1]) return false;
  return true;
}
