import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

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
