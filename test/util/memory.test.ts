import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { collectAfter, collectionDelayMs } from '../../src/util/memory';
import { ManualClock } from '../support/manual-clock';

const root = path.join(__dirname, '..', '..');

/** Whether an array nothing holds any more is gone after collectGarbage(), in a node started with `flags`. */
function collectedWith(flags: string[]): string {
  const script = `
    const { collectGarbage } = require('./src/util/memory');
    let big = Array.from({ length: 100000 }, (_, i) => i);
    const ref = new WeakRef(big);
    big = null;
    // a WeakRef target stays alive until the current job ends
    setTimeout(() => {
      collectGarbage();
      process.stdout.write(ref.deref() === undefined ? 'collected' : 'kept');
    }, 0);`;
  return execFileSync(process.execPath, [...flags, '-r', 'tsx/cjs', '-e', script], { cwd: root }).toString();
}

test('collectGarbage collects in a node started with --expose-gc, and is harmless without it', () => {
  expect(collectedWith(['--expose-gc'])).toBe('collected');
  expect(['collected', 'kept']).toContain(collectedWith([]));
});

test('the daemon is started with --expose-gc: the container entrypoint and the bin script', () => {
  expect(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toMatch(
    /^ENTRYPOINT \["node", "--expose-gc", "bin\/mailbridge\.js"\]$/m,
  );
  expect(fs.readFileSync(path.join(root, 'bin', 'mailbridge.js'), 'utf8')).toMatch(
    /^#!\/usr\/bin\/env -S node --expose-gc\n/,
  );
});

const withoutGc = globalThis.gc;
afterEach(() => {
  globalThis.gc = withoutGc;
});

test('a large job is collected a second after it ends, once for the jobs ending within that second; a small one is not', async () => {
  const clock = new ManualClock();
  const gc = vi.fn();
  globalThis.gc = gc;
  collectAfter(4999, clock);
  await clock.advance(2 * collectionDelayMs);
  expect(gc).not.toHaveBeenCalled();
  collectAfter(5000, clock);
  await clock.advance(collectionDelayMs / 2);
  collectAfter(20_000, clock);
  await clock.advance(collectionDelayMs / 2 - 1);
  expect(gc).not.toHaveBeenCalled();
  await clock.advance(1);
  expect(gc).toHaveBeenCalledTimes(1);
  await clock.advance(2 * collectionDelayMs);
  expect(gc).toHaveBeenCalledTimes(1);
  collectAfter(5000, clock);
  await clock.advance(collectionDelayMs);
  expect(gc).toHaveBeenCalledTimes(2);
});
