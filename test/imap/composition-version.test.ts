import { afterAll, beforeAll, expect, test } from 'vitest';
import { describeRecord } from '../../src/mime';
import { MailStore } from '../../src/store';
import type { MailMessage } from '../../src/domain/message';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession } from '../support/raw-session';

/**
 * A message already served under a UID never changes bytes: each stored row keeps the
 * composition it was first described with (mime/compose.ts). Rows from before compositions
 * existed keep their first form; a later config change does not touch stored rows.
 */

let h: Harness;
const vendorClock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 60 }, vendorClock });
});

afterAll(async () => {
  await h?.close();
  vendorClock.stop();
});

/** uid -> [RFC822.SIZE, BODY[]] of every INBOX message. */
async function served(): Promise<Map<number, { size: number; bytes: string }>> {
  const imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  await imap.run('EXAMINE INBOX');
  const answer = await imap.run('FETCH 1:* (UID RFC822.SIZE BODY.PEEK[])');
  imap.close();
  const out = new Map<number, { size: number; bytes: string }>();
  const start = /\* \d+ FETCH \(UID (\d+) RFC822\.SIZE (\d+) BODY\[\] \{(\d+)\}\r\n/g;
  for (let m = start.exec(answer); m; m = start.exec(answer)) {
    out.set(Number(m[1]), { size: Number(m[2]), bytes: answer.slice(start.lastIndex, start.lastIndex + Number(m[3])) });
    start.lastIndex += Number(m[3]);
  }
  return out;
}

test('a config change after a message was served leaves its bytes alone', async () => {
  const before = await served();
  expect([...before.values()].some((m) => /^X-Spam-Flag: YES/m.test(m.bytes))).toBe(false);
  await h.restart({ messages: { authservId: 'auth.changed.example', spamFlagThreshold: 0 } });
  expect(await served()).toEqual(before);
});

test('a row stored before compositions existed is served in its first form', async () => {
  const before = await served();
  const bounce = [...before].find(([, m]) => m.bytes.includes('message/delivery-status'));
  expect(bounce).toBeDefined();
  const [uid, current] = bounce!;
  expect(current.bytes).toMatch(/Content-Type: message\/delivery-status[^\r]*\r\nContent-Transfer-Encoding: 7bit/);

  // the row as a version without compositions stored it: the message without one, described from it
  const messageId = /^Message-ID: (.*)$/m.exec(current.bytes)![1];
  const db = MailStore.open(h.stateDir);
  const all = db.db.prepare('SELECT message_uid, message FROM message_cache WHERE account = ?').all(mailbox) as Array<{
    message_uid: string;
    message: string;
  }>;
  const row = all.find((r) => (JSON.parse(r.message) as MailMessage).messageId === messageId)!;
  const { composition: _, ...first } = JSON.parse(row.message) as MailMessage;
  db.putMetadataRecords(mailbox, [describeRecord(first)]);
  db.close();
  await h.restart();

  const after = (await served()).get(uid)!;
  expect(after.bytes).not.toBe(current.bytes);
  expect(after.bytes).not.toMatch(/^Authentication-Results:/m);
  expect(after.bytes).toMatch(/Content-Type: message\/delivery-status[^\r]*\r\nContent-Transfer-Encoding: base64/);
  expect(Buffer.byteLength(after.bytes, 'latin1')).toBe(after.size);
});
