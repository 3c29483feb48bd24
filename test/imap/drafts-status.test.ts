import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * STATUS of a Drafts folder no session has selected yet, after an APPEND: the vendor's folder
 * counts do not know the bridge's local drafts, so they alone would answer one message short
 * while SELECT shows it (RFC 3501 6.3.10: STATUS and SELECT count the same messages).
 */

let h: Harness;
let s: RawSession;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 60 } });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
});

afterAll(async () => {
  s?.close();
  await h?.close();
});

const count = (answer: string, item: string) => Number(new RegExp(`${item} (\\d+)`).exec(answer)?.[1]);

test('STATUS counts a draft appended to a Drafts folder never selected, as SELECT then does', async () => {
  const before = await s.run('STATUS Drafts (MESSAGES UNSEEN)');
  expect(before).toMatch(/MESSAGES \d+/);
  const draft = ['From: Ann <ann@example.test>', 'Subject: counted', '', 'unsent', ''].join('\r\n');
  expect(await s.append('Drafts', draft)).toMatch(/OK \[APPENDUID/);

  const after = await s.run('STATUS Drafts (MESSAGES UNSEEN)');
  expect(count(after, 'MESSAGES'), after).toBe(count(before, 'MESSAGES') + 1);
  expect(count(after, 'UNSEEN'), after).toBe(count(before, 'UNSEEN') + 1);

  const selected = await s.run('SELECT Drafts');
  expect(Number(/\* (\d+) EXISTS/.exec(selected)?.[1]), selected).toBe(count(after, 'MESSAGES'));
});
