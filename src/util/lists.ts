/**
 * `map` and `filter` for the code that describes every message of a sync. V8 gives the lists
 * Array.prototype.map and filter return a kind of storage that depends on their length (an
 * empty one holds small integers, a filled one objects): code reading such lists meets two
 * shapes, and when the second first comes after V8 optimized that code, the code is compiled
 * again. Lists made here grow from one literal whose storage V8 learns, so after the first
 * lists of objects, empty and filled ones share one shape (test/util/lists.test.ts).
 */

export function mapped<T, U>(list: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < list.length; i++) out.push(fn(list[i], i));
  return out;
}

export function kept<T>(list: readonly T[], test: (item: T) => boolean): T[] {
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) if (test(list[i])) out.push(list[i]);
  return out;
}
