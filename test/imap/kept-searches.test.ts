import { afterEach, expect, test, vi } from 'vitest';
import { control, mailbox } from '../support/bridge-harness';
import { status, useConformance } from '../support/conformance';
import { ManualClock } from '../support/manual-clock';
import type { RawSession } from '../support/raw-session';
import * as rowTestsModule from '../../src/imap/row-tests';

/**
 * A search on what messages say (header fields, Date) asked again reads no message already
 * evaluated: only flag terms are evaluated again, and only new messages are read.
 */

vi.mock('../../src/imap/row-tests', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/imap/row-tests')>();
  return { ...original, rowTests: vi.fn(original.rowTests) };
});

const rowTests = vi.mocked(rowTestsModule.rowTests);

/** How many rows each search since the last call read messages of. */
function rowsRead(): number[] {
  const read = rowTests.mock.calls.map((call) => call[3].length);
  rowTests.mockClear();
  return read;
}

const c = useConformance({ sandbox: { messages: 6 }, vendorClock: new ManualClock() });

afterEach(() => {
  rowTests.mockClear();
});

async function inject(subject: string): Promise<void> {
  await control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject, text: 'text' },
  });
  await c.h.bridge.pollers[0].tick();
}

const uids = (answer: string): string => /\* SEARCH ?([\d ]*)/.exec(answer)?.[1] ?? `no SEARCH in: ${answer}`;

async function uidOf(s: RawSession, subject: string): Promise<string> {
  return uids(await s.run(`UID SEARCH SUBJECT "${subject}"`));
}

test('a header search asked again reads no message, and its answer follows flags, arrivals and expunges', async () => {
  await inject('Kept search Übergabe one');
  await inject('Kept search Übergabe two');
  const s = await c.session('INBOX');
  const [one, two] = [await uidOf(s, 'Übergabe one'), await uidOf(s, 'Übergabe two')];
  const inFolder = uids(await s.run('UID SEARCH ALL')).split(' ').length;
  rowsRead();

  const word = 'übergabe';
  const search = `UID SEARCH CHARSET UTF-8 SUBJECT {${Buffer.byteLength(word)}+}\r\n${word} UNFLAGGED`;
  expect(uids(await s.run(search))).toBe(`${one} ${two}`);
  expect(rowsRead()).toEqual([inFolder]);
  expect(uids(await s.run(search))).toBe(`${one} ${two}`);
  expect(rowsRead()).toEqual([]);

  expect(status(await s.run(`UID STORE ${one} +FLAGS.SILENT (\\Flagged)`))).toMatch(/^OK/);
  expect(uids(await s.run(search))).toBe(two);
  expect(rowsRead()).toEqual([]);

  await inject('Kept search ÜBERGABE three');
  await inject('Kept search elsewhere');
  await s.run('NOOP');
  const three = await uidOf(s, 'ÜBERGABE three');
  rowsRead();
  expect(uids(await s.run(search))).toBe(`${two} ${three}`);
  // the two new messages only
  expect(rowsRead()).toEqual([2]);

  expect(status(await s.run(`UID STORE ${two} +FLAGS.SILENT (\\Deleted)`))).toMatch(/^OK/);
  expect(status(await s.run('EXPUNGE'))).toMatch(/^OK/);
  expect(uids(await s.run(search))).toBe(three);
  expect(rowsRead()).toEqual([]);
  s.close();
});

test('the same search in another folder, or from another session, gives that folder its own answer', async () => {
  await inject('Kept search per folder');
  const s = await c.session('INBOX');
  const inInbox = await uidOf(s, 'per folder');
  expect(inInbox).toMatch(/^\d+$/);
  const other = await c.session('Sent');
  expect(uids(await other.run('UID SEARCH SUBJECT "per folder"'))).toBe('');
  const again = await c.session('INBOX');
  expect(await uidOf(again, 'per folder')).toBe(inInbox);
  for (const session of [s, other, again]) session.close();
});

test('searches that read the vendor or a session’s \\Recent are evaluated every time', async () => {
  await inject('Kept search never');
  const s = await c.session('INBOX');
  for (const search of [
    'UID SEARCH SUBJECT "never" RECENT',
    'UID SEARCH SUBJECT "never" BODY "text"',
    'UID SEARCH UNFLAGGED',
  ]) {
    await s.run(search);
    rowsRead();
    await s.run(search);
    expect(rowsRead(), search).toHaveLength(1);
  }
  s.close();
});
