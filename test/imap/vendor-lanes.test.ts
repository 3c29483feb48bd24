import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession, type RawSession } from '../support/raw-session';
import { MailboxClient } from '../../src/upstream/mailbox-client';

/**
 * Which request-gate lane the bridge's vendor reads travel in, seen on the real bridge's
 * vendor client (its methods observed, not replaced) while a real IMAP session works: a first sync in `sync`; the attachment
 * downloads of a person opening a message in `content`, those of a bulk download in `sync`.
 */

let h: Harness;
let session: RawSession;
/** The gate's vendor seconds pass on it, not in real time. */
const vendorClock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 80 }, vendorClock });
  session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
});
afterAll(async () => {
  session?.close();
  await h?.close();
  vendorClock.stop();
});

test('first sync in sync; a click downloads in content; a bulk download in sync', async () => {
  const listThreads = vi.spyOn(MailboxClient.prototype, 'listThreads');
  const raw = vi.spyOn(MailboxClient.prototype, 'raw');
  const exists = Number(/\* (\d+) EXISTS/.exec(await session.run('SELECT INBOX'))?.[1]);
  expect(exists).toBeGreaterThan(10);
  expect(listThreads.mock.calls.length).toBeGreaterThan(0);
  expect(new Set(listThreads.mock.calls.map((c) => c[1]))).toEqual(new Set(['sync']));

  // (the first sync fetched message/* parts, which are composed inline, in the sync lane too)
  expect(new Set(raw.mock.calls.map((c) => c[2]))).toEqual(new Set(raw.mock.calls.length ? ['sync'] : []));
  raw.mockClear();
  // open messages one by one until one of them needed an attachment from the vendor
  for (let seq = 1; seq <= exists && raw.mock.calls.length === 0; seq++)
    expect(await session.run(`FETCH ${seq} BODY.PEEK[]`)).toMatch(/ OK /);
  expect(raw.mock.calls.length).toBeGreaterThan(0);
  expect(new Set(raw.mock.calls.map((c) => c[2]))).toEqual(new Set(['content']));

  raw.mockClear();
  expect(await session.run('FETCH 1:* BODY.PEEK[]')).toMatch(/ OK /);
  expect(raw.mock.calls.length).toBeGreaterThan(0);
  expect(new Set(raw.mock.calls.map((c) => c[2]))).toEqual(new Set(['sync']));
});
