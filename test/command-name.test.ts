import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { binPath, mailbridgeCommand } from '../src/command-name';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A directory holding `mailbridge` as a link to `target`, at `sub` inside a fresh temporary one. */
function linkedIn(sub: string, target: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-command-'));
  dirs.push(root);
  const dir = path.join(root, sub);
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(target, path.join(dir, 'mailbridge'));
  return dir;
}

describe('the mailbridge command printed to users', () => {
  test('a global install (its link on PATH) is run by its name', () => {
    expect(mailbridgeCommand({ PATH: linkedIn('bin', binPath) })).toBe('mailbridge');
  });

  test('without it on PATH, the absolute path of the bin', () => {
    expect(mailbridgeCommand({ PATH: '/nonexistent' })).toBe(binPath);
  });

  test('another installation first on PATH: the absolute path of this one', () => {
    const other = linkedIn('bin', '/usr/bin/env');
    expect(mailbridgeCommand({ PATH: [other, linkedIn('bin', binPath)].join(path.delimiter) })).toBe(binPath);
  });

  test("under npx or npm run, whose node_modules/.bin is not on the user's own PATH: the absolute path", () => {
    // `npm ci && npx mailbridge` (the README's first line) runs the demo with the checkout's
    // node_modules/.bin first on PATH; a printed `mailbridge status` then fails in the user's shell
    const npx = linkedIn(path.join('checkout', 'node_modules', '.bin'), binPath);
    expect(mailbridgeCommand({ PATH: [npx, '/usr/bin'].join(path.delimiter) })).toBe(binPath);
  });
});
