import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * The bytes of FETCH answers as a strict reader sees them: every message is exactly
 * RFC822.SIZE bytes and ends with CRLF, and the items imap-core adds on its own (UID for UID
 * FETCH, FLAGS when the fetch sets \Seen) come before the body literal, as Dovecot writes them.
 */

let h: Harness;
let imap: RawSession;

beforeAll(async () => {
  h = await startHarness();
  imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
});

afterAll(async () => {
  imap?.close();
  await h?.close();
});

/** `* n FETCH (...)` answers: the text before the first literal, the literal, and the size item. */
function literals(answer: string): Array<{ before: string; literal: string; size: number }> {
  const out: Array<{ before: string; literal: string; size: number }> = [];
  const start = /\* \d+ FETCH \((.*?)\{(\d+)\}\r\n/g;
  for (let m = start.exec(answer); m; m = start.exec(answer)) {
    const length = Number(m[2]);
    const literal = answer.slice(start.lastIndex, start.lastIndex + length);
    out.push({ before: m[1], literal, size: Number(/RFC822\.SIZE (\d+)/.exec(m[1])?.[1] ?? -1) });
    start.lastIndex += length;
  }
  return out;
}

test('every message is RFC822.SIZE bytes and ends with CRLF', async () => {
  const inbox = await vendorFolder(h.sandbox, 'INBOX');
  await imap.run('EXAMINE INBOX');
  const answers = literals(await imap.run('FETCH 1:* (RFC822.SIZE BODY.PEEK[])'));
  expect(answers).toHaveLength(inbox.length);
  const emptyPart = answers.filter((a) => a.literal.includes('filename=leer.txt'));
  expect(emptyPart).toHaveLength(1);
  for (const a of answers) {
    expect(Buffer.byteLength(a.literal, 'latin1')).toBe(a.size);
    expect(a.literal.endsWith('\r\n')).toBe(true);
  }
});

test('UID and the FLAGS a fetch adds come before the body literal', async () => {
  await imap.run('SELECT INBOX');
  const uid = /UID (\d+)/.exec(await imap.run('FETCH 1 (UID)'))?.[1];
  await imap.run(`UID STORE ${uid} -FLAGS.SILENT (\\Seen)`);
  const [answer] = literals(await imap.run(`UID FETCH ${uid} (BODY[])`));
  expect(answer.before).toMatch(new RegExp(`^UID ${uid} FLAGS \\([^)]*\\\\Seen[^)]*\\) BODY\\[\\] $`));
});

test('UID and FLAGS a client lists after a body section still come first', async () => {
  await imap.run('EXAMINE INBOX');
  const [answer] = literals(await imap.run('FETCH 2 (BODY.PEEK[HEADER] RFC822.SIZE FLAGS UID)'));
  expect(answer.before).toMatch(/^UID \d+ FLAGS \([^)]*\) BODY\[HEADER\] $/);
});
