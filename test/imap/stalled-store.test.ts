import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { mailbox, useImapSession } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * A STORE waits for the vendor, and for nothing else: while one session's STORE sits at the
 * vendor, every other command of the account (another session's reads, a STORE of flags the
 * vendor does not keep, a new session's SELECT) answers from local state. The vendor holds
 * each request until the test moves the clock its latency waits on.
 */

/** What the vendor's latency waits on: a request it delays is held until the test moves this. */
const held = new ManualClock();
const s = useImapSession({ sandbox: { messages: 20, latencyClock: held } });
let writer: RawSession;
let reader: RawSession;

beforeAll(async () => {
  writer = await rawSession(s.h.bridge.ports.imap, mailbox, s.h.password);
  reader = await rawSession(s.h.bridge.ports.imap, mailbox, s.h.password);
  expect(await writer.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  expect(await reader.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  expect(await reader.run('FETCH 1 BODY.PEEK[]')).toMatch(/^t\d+ OK/m);
});

afterAll(() => {
  writer?.close();
  reader?.close();
});

test("another session's FETCH, SEARCH, NOOP, STATUS, LIST, SELECT and a local STORE answer while a STORE waits for the vendor", async () => {
  s.h.sandbox.setLatency(1);
  const sent = s.h.sandbox.received();
  let answered = false;
  const store = writer.run('STORE 2 FLAGS (\\Seen \\Flagged Zeta)').then((answer) => {
    answered = true;
    return answer;
  });
  try {
    // the STORE's request is at the vendor, which holds it
    await vi.waitFor(() => expect(s.h.sandbox.received()).toBeGreaterThan(sent), { timeout: 20_000, interval: 5 });

    for (const command of [
      'FETCH 1:* (UID FLAGS ENVELOPE RFC822.SIZE)',
      'FETCH 1 BODY.PEEK[]',
      'SEARCH UNSEEN',
      'SEARCH FLAGGED',
      'NOOP',
      'STATUS INBOX (MESSAGES UNSEEN UIDNEXT)',
      'LIST "" "*"',
      // \Answered is kept here only: nothing to wait for
      'STORE 3 +FLAGS (\\Answered)',
      'SELECT INBOX',
    ])
      expect(await reader.run(command), command).toMatch(/^t\d+ OK/m);
    const newcomer = await rawSession(s.h.bridge.ports.imap, mailbox, s.h.password);
    try {
      expect(await newcomer.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
      expect(await newcomer.run('FETCH 1:5 (FLAGS)')).toMatch(/^t\d+ OK/m);
    } finally {
      newcomer.close();
    }
    expect(answered).toBe(false);
  } finally {
    s.h.sandbox.setLatency(0);
    await held.advance(1);
  }
  expect(await store).toMatch(/^t\d+ OK/m);
});
