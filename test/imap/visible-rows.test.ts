import { describe, expect, test } from 'vitest';
import type { MessageRow } from '../../src/store';
import { visibleRows } from '../../src/imap/visible-rows';

const row = (uid: number): MessageRow => ({ uid, messageUid: `m${uid}`, flags: [], modseq: 1, idate: 0, size: 0 });
const uids = (rows: readonly MessageRow[]) => rows.map((r) => r.uid);

describe('visibleRows', () => {
  const folder = [1, 2, 4, 7, 9, 12].map(row);

  test('keeps the rows whose UID the session lists, in UID order', () => {
    expect(uids(visibleRows(folder, [1, 2, 4, 7, 9, 12]))).toEqual([1, 2, 4, 7, 9, 12]);
    // the session has not seen 9 and 12 yet, and knows 3 and 8, which the folder no longer holds
    expect(uids(visibleRows(folder, [2, 3, 7, 8]))).toEqual([2, 7]);
    expect(uids(visibleRows(folder, []))).toEqual([]);
    expect(uids(visibleRows([], [1, 2]))).toEqual([]);
  });

  test('a list out of UID order selects the same rows', () => {
    expect(uids(visibleRows(folder, [12, 2, 7, 3]))).toEqual([2, 7, 12]);
    expect(uids(visibleRows(folder, [4, 4, 1]))).toEqual([1, 4]);
  });
});
