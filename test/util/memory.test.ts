import { expect, test } from 'vitest';
import { collectGarbage } from '../../src/util/memory';

test('collectGarbage frees what nothing holds any more, and can be called again', async () => {
  let big: number[] | null = Array.from({ length: 100_000 }, (_, i) => i);
  const ref = new WeakRef(big);
  big = null;
  // a WeakRef target stays alive until the current job ends
  await new Promise((r) => setTimeout(r, 0));
  collectGarbage();
  expect(ref.deref()).toBeUndefined();
  expect(() => collectGarbage()).not.toThrow();
});
