import { expect, test } from 'vitest';
import { Memo } from '../../src/util/memo';

test('a memo remembers up to its limit, then starts over with the value being set', () => {
  const memo = new Memo<string, number>(2);
  expect(memo.set('a', 1)).toBe(1);
  memo.set('b', 2);
  expect([memo.get('a'), memo.get('b')]).toEqual([1, 2]);
  // full: everything is forgotten before 'c' is remembered
  memo.set('c', 3);
  expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, undefined, 3]);
  // a value that is not undefined, however falsy, is remembered
  expect(memo.set('d', 0)).toBe(0);
  expect(memo.get('d')).toBe(0);
});
