import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { systemdUnit } from '../../src/service';
import { allocatorEnvironment } from '../../src/util/memory';

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
    /^#!\/usr\/bin\/env -S (?:\w+=\w+ )*node --expose-gc\n/,
  );
});

test('the daemon starts with the allocator settings: the container, the bin script and the systemd unit', () => {
  const settings = Object.entries(allocatorEnvironment).map(([name, value]) => `${name}=${value}`);
  expect(settings).toEqual(['MALLOC_ARENA_MAX=1', 'MALLOC_TRIM_THRESHOLD_=131072']);
  // the ENV of the image's last stage, the one that runs
  const runStage =
    fs
      .readFileSync(path.join(root, 'Dockerfile'), 'utf8')
      .split(/^FROM /m)
      .at(-1) ?? '';
  const dockerEnv = /^ENV ((?:.*\\\n)*.*)$/m.exec(runStage)?.[1] ?? '';
  for (const setting of settings) expect(dockerEnv.split(/\s+/)).toContain(setting);
  const shebang = fs.readFileSync(path.join(root, 'bin', 'mailbridge.js'), 'utf8').split('\n')[0];
  expect(shebang).toBe(`#!/usr/bin/env -S ${settings.join(' ')} node --expose-gc`);
  expect(systemdUnit('/etc/mailbridge.json')).toContain(`\nEnvironment=${settings.join(' ')}\n`);
});

test('the bin script runs node with those settings in its environment', () => {
  const bin = path.join(root, 'bin', 'mailbridge.js');
  // what the script's node sees: the shebang's env sets the variables before node starts
  const seen = execFileSync(bin, ['--version'], {
    cwd: root,
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: '8',
      NODE_OPTIONS: `-r ${path.join(__dirname, 'print-allocator-env.cjs')}`,
    },
  }).toString();
  expect(JSON.parse(seen.split('\n')[0])).toEqual(allocatorEnvironment);
});
