import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * RFC 3501 6.3.11: every APPEND adds a new message, the same bytes appended twice included
 * (a client saving one draft into two places, imaptest's expunge group). Each keeps its own
 * UID, flags and INTERNALDATE, and expunging one leaves the other whole.
 */

let h: Harness;
let s: RawSession;

const draft = ['From: Ann <ann@example.test>', 'Subject: twice', '', 'the same bytes', ''].join('\r\n');

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 2 } });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
});

afterAll(async () => {
  s?.close();
  await h?.close();
});

const appendedUid = async (flags: string) => {
  const answer = await s.append('Drafts', draft, flags);
  const uid = /OK \[APPENDUID \d+ (\d+)\]/.exec(answer)?.[1];
  expect(uid, answer).toBeDefined();
  return Number(uid);
};

test('the same bytes appended twice are two messages, each with its own UID, flags and date', async () => {
  const first = await appendedUid('(\\Seen) "05-Jan-2023 10:00:00 +0000"');
  const second = await appendedUid('(\\Flagged) "06-Jan-2023 10:00:00 +0000"');
  expect(second).toBeGreaterThan(first);

  expect(await s.run('SELECT Drafts')).toContain('* 2 EXISTS');
  const fetched = await s.run('UID FETCH 1:* (FLAGS INTERNALDATE)');
  expect(fetched).toContain(
    `* 1 FETCH (UID ${first} FLAGS (\\Seen \\Recent) INTERNALDATE "05-Jan-2023 10:00:00 +0000")`,
  );
  expect(fetched).toContain(
    `* 2 FETCH (UID ${second} FLAGS (\\Flagged \\Recent) INTERNALDATE "06-Jan-2023 10:00:00 +0000")`,
  );

  expect(await s.run(`UID STORE ${first} +FLAGS.SILENT (\\Deleted)`)).toMatch(/ OK /);
  expect(await s.run('EXPUNGE')).toContain('* 1 EXPUNGE');
  const body = await s.run(`UID FETCH ${second} (BODY.PEEK[TEXT])`);
  expect(body).toContain('the same bytes');
  expect(await s.run('NOOP')).not.toContain('EXPUNGE');
});
