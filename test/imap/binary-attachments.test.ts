import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';
import { attachmentBytes, injectAttachedMessage } from '../support/attached-message';

/**
 * FETCH BINARY (RFC 3516) of a vendor message's attachment, whose bytes the bridge fetches from
 * the vendor and serves as a stream: BINARY[2] is the attachment's own bytes, BINARY.SIZE[2]
 * their length, a window of them cut from the decoded bytes, sent as a literal8 (it holds NULs).
 * rfc3516-binary.test.ts compares the answers with Dovecot's for appended messages.
 */

/** 40,000 bytes: every byte value, NULs included. */
const bytes = attachmentBytes;

let h: Harness;
let imap: RawSession;
let uid: string;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 3 } });
  const message_id = await injectAttachedMessage(h, bytes);
  imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  await imap.run('SELECT INBOX');
  uid = /SEARCH (\d+)/.exec(await imap.run(`UID SEARCH HEADER Message-ID "${message_id}"`))?.[1] ?? '';
  expect(uid).not.toBe('');
});

afterAll(async () => {
  imap?.close();
  await h?.close();
});

/** The bytes of the one literal (or literal8) of a FETCH answer. */
function literal(answer: string): { literal8: boolean; bytes: Buffer } {
  const m = /(~?)\{(\d+)\}\r\n/.exec(answer);
  if (!m) throw new Error(`no literal in ${answer.slice(0, 200)}`);
  const start = m.index + m[0].length;
  return { literal8: m[1] === '~', bytes: Buffer.from(answer.slice(start, start + Number(m[2])), 'latin1') };
}

test('BINARY[2] is the attachment, BINARY.SIZE[2] its length, in a literal8', async () => {
  const structure = await imap.run(`UID FETCH ${uid} (BODYSTRUCTURE)`);
  expect(structure).toMatch(/"BASE64"/i);
  const whole = await imap.run(`UID FETCH ${uid} (BINARY.PEEK[2] BINARY.SIZE[2])`);
  expect(whole).toMatch(/BINARY\[2\] ~\{40000\}\r\n/);
  expect(literal(whole)).toEqual({ literal8: true, bytes });
  expect(whole).toMatch(/BINARY\.SIZE\[2\] 40000\b/);
});

test('a window of the decoded bytes; BINARY without PEEK sets \\Seen', async () => {
  const part = await imap.run(`UID FETCH ${uid} (BINARY.PEEK[2]<30000.100>)`);
  expect(part).toMatch(/BINARY\[2\]<30000> ~\{100\}\r\n/);
  expect(literal(part).bytes).toEqual(bytes.subarray(30_000, 30_100));
  expect(await imap.run(`UID STORE ${uid} -FLAGS.SILENT (\\Seen)`)).toMatch(/ OK/);
  const read = await imap.run(`UID FETCH ${uid} (BINARY[1])`);
  expect(read).toMatch(/FLAGS \([^)]*\\Seen/);
  expect(literal(read).bytes.toString()).toContain('Attached.');
});
