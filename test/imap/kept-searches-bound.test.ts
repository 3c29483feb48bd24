import { expect, test } from 'vitest';
import type { AccountView } from '../../src/domain/account-view';
import type { ImapFolder } from '../../src/domain/mailbox-map';
import { keptSearch } from '../../src/imap/kept-searches';
import type { SearchTerm } from '../../src/imap/search';

/** Kept searches stand for at most 200,000 rows of their folders per account, and 32 searches. */

function viewWith(rows: number): AccountView {
  return { allRows: () => new Array(rows) } as unknown as AccountView;
}

const folder = { key: 'INBOX' } as ImapFolder;
const subject = (word: string): SearchTerm[] => [{ key: 'header', header: 'subject', value: word }];

test('two searches of a 100,000-message folder are kept, a third puts the oldest out', () => {
  const view = viewWith(100_000);
  const [one, two] = [keptSearch(view, folder, subject('one')), keptSearch(view, folder, subject('two'))];
  expect(keptSearch(view, folder, subject('one'))).toBe(one);
  expect(keptSearch(view, folder, subject('two'))).toBe(two);
  keptSearch(view, folder, subject('three'));
  // 'one' was used before 'two': the least recently used goes
  expect(keptSearch(view, folder, subject('two'))).toBe(two);
  expect(keptSearch(view, folder, subject('one'))).not.toBe(one);
});

test('searches of a small folder are kept up to 32', () => {
  const view = viewWith(10);
  const first = keptSearch(view, folder, subject('word 0'));
  for (let i = 1; i < 32; i++) keptSearch(view, folder, subject(`word ${i}`));
  expect(keptSearch(view, folder, subject('word 0'))).toBe(first);
  for (let i = 32; i < 64; i++) keptSearch(view, folder, subject(`word ${i}`));
  expect(keptSearch(view, folder, subject('word 0'))).not.toBe(first);
});

test('a search of flags alone, of the vendor (BODY) or of \\Recent is not kept', () => {
  const view = viewWith(10);
  expect(keptSearch(view, folder, [{ key: 'flag', value: '\\Seen', exists: true }])).toBeUndefined();
  expect(keptSearch(view, folder, [...subject('x'), { key: 'body', value: 'y' }])).toBeUndefined();
  expect(keptSearch(view, folder, [...subject('x'), { key: 'flag', value: '\\Recent', exists: true }])).toBeUndefined();
  expect(keptSearch(view, folder, [{ key: 'not', value: subject('x')[0] }])).toBeDefined();
});
