import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';
import { requireTools } from '../support/tools';

/**
 * s-nail reads IMAP answers line by line: it needs each message to end with CRLF and UID
 * ahead of the body literal, or it reads past the message and times out (its `copy *` then
 * stops at that message).
 */

let h: Harness;

beforeAll(async () => {
  requireTools('s-nail');
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/** s-nail in batch mode on the bridge's INBOX (plaintext login is accepted from loopback); killed after 60 s. */
function snail(commands: string): Promise<{ out: string; code: number | null }> {
  const dir = fs.mkdtempSync(path.join(h.stateDir, 'snail-'));
  const user = encodeURIComponent(mailbox);
  const child = spawn(
    's-nail',
    [
      '-#',
      '-:/',
      '-Sv15-compat',
      '-Sverbose',
      '-f',
      `imap://${user}:${encodeURIComponent(h.password)}@127.0.0.1:${h.bridge.ports.imap}/INBOX`,
    ],
    { env: { ...process.env, HOME: dir, MAILRC: '/dev/null' } },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('latin1')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('latin1')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stdin.end(commands);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out, code });
    }),
  );
}

test('s-nail copies every INBOX message to an mbox', async () => {
  const inbox = await vendorFolder(h.sandbox, 'INBOX');
  const { out, code } = await snail(`copy * ${path.join(h.stateDir, 'copied.mbox')}\nquit\n`);
  expect(out).not.toMatch(/IMAP: |unavailable|timed out/i);
  expect(code).toBe(0);
  const mbox = fs.readFileSync(path.join(h.stateDir, 'copied.mbox'), 'latin1');
  expect(mbox.match(/^From /gm)?.length).toBe(inbox.length);
  for (const m of inbox) expect(mbox).toContain(`Message-ID: ${m.message_id}`);
}, 90_000);
