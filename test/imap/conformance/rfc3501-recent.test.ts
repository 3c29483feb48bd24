import { expect, test } from 'vitest';
import { control, mailbox } from '../../support/bridge-harness';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 2.3.2: \Recent is set in exactly one session, the first to meet the message in its
 * folder; the RECENT count of SELECT and STATUS, FETCH FLAGS and SEARCH RECENT/NEW/OLD follow.
 * As in Dovecot 2.3, a client cannot STORE \Recent (BAD).
 */

const c = useConformance({ sandbox: { messages: 8 } });

const hits = (answer: string) => untagged(answer)[0].split(' ').slice(1).map(Number);
const recentCount = (answer: string) => Number(/^\* (\d+) RECENT/m.exec(answer)?.[1]);

test('the first SELECT gets the new messages as \\Recent, a second session none of them', async () => {
  const first = await c.session();
  const selected = await first.run('SELECT INBOX');
  const exists = Number(/^\* (\d+) EXISTS/m.exec(selected)?.[1]);
  expect(exists).toBeGreaterThan(0);
  expect(recentCount(selected)).toBe(exists);
  expect(untagged(await first.run('FETCH 1 (FLAGS)'))[0]).toMatch(/\\Recent/);
  expect(hits(await first.run('SEARCH RECENT'))).toHaveLength(exists);
  expect(hits(await first.run('SEARCH NEW'))).toEqual(hits(await first.run('SEARCH RECENT UNSEEN')));
  expect(hits(await first.run('SEARCH OLD'))).toEqual([]);

  const second = await c.session();
  expect(recentCount(await second.run('SELECT INBOX'))).toBe(0);
  expect(untagged(await second.run('FETCH 1:* (FLAGS)')).join('\n')).not.toMatch(/\\Recent/);
  expect(hits(await second.run('SEARCH RECENT'))).toEqual([]);
  expect(hits(await second.run('SEARCH OLD'))).toHaveLength(exists);
  // a client cannot change \Recent
  expect(status(await second.run('STORE 1 -FLAGS (\\Recent)'))).toMatch(/^BAD/);
  expect(untagged(await first.run('FETCH 1 (FLAGS)'))[0]).toMatch(/\\Recent/);
  first.close();
  second.close();
});

test('a message arriving later is \\Recent only in the session that meets it first; STATUS counts it until then', async () => {
  const a = await c.session('INBOX');
  const b = await c.session('INBOX');
  await control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject: 'Recent news', text: 'hello' },
  });
  await c.h.bridge.pollers[0].tick();

  const observer = await c.session();
  expect(untagged(await observer.run('STATUS INBOX (RECENT)'))).toEqual([
    expect.stringMatching(/^STATUS "?INBOX"? \(RECENT 1\)$/),
  ]);

  const seenByB = await b.run('NOOP');
  const seq = Number(/^\* (\d+) EXISTS/m.exec(seenByB)?.[1]);
  expect(untagged(await b.run(`FETCH ${seq} (FLAGS)`))[0]).toMatch(/\\Recent/);
  await a.run('NOOP');
  expect(untagged(await a.run(`FETCH ${seq} (FLAGS)`))[0]).not.toMatch(/\\Recent/);
  expect(hits(await a.run('SEARCH RECENT'))).not.toContain(seq);
  expect(hits(await b.run('SEARCH RECENT'))).toContain(seq);
  expect(untagged(await observer.run('STATUS INBOX (RECENT)'))).toEqual([
    expect.stringMatching(/^STATUS "?INBOX"? \(RECENT 0\)$/),
  ]);
  for (const s of [a, b, observer]) s.close();
});

test('EXAMINE shows the unclaimed messages as \\Recent and leaves them \\Recent for the next SELECT (6.3.2)', async () => {
  await control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject: 'Examined news', text: 'hello' },
  });
  await c.h.bridge.pollers[0].tick();
  const examiner = await c.session();
  expect(recentCount(await examiner.run('EXAMINE INBOX'))).toBe(1);
  await examiner.run('FETCH 1:* (FLAGS)');
  const selector = await c.session();
  expect(recentCount(await selector.run('SELECT INBOX'))).toBe(1);
  examiner.close();
  selector.close();
});

test('messages APPENDed to a folder no session has opened yet are \\Recent for its first SELECT, as in Dovecot (imaptest select, search-flags)', async () => {
  const appender = await c.session();
  const appended = [1, 2].map(
    (n) =>
      `From: ann@example.org\r\nSubject: draft ${n}\r\nMessage-ID: <never-opened-${n}@example.org>\r\n\r\ntext\r\n`,
  );
  for (const message of appended) expect(status(await appender.append('Drafts', message, '()'))).toMatch(/^OK/);
  const observer = await c.session();
  expect(untagged(await observer.run('STATUS Drafts (RECENT)'))).toEqual([
    expect.stringMatching(/^STATUS "?Drafts"? \(RECENT 2\)$/),
  ]);
  expect(recentCount(await observer.run('EXAMINE Drafts'))).toBe(2);
  const selector = await c.session();
  const selected = await selector.run('SELECT Drafts');
  const exists = Number(/^\* (\d+) EXISTS/m.exec(selected)?.[1]);
  expect(recentCount(selected)).toBe(2);
  expect(hits(await selector.run('SEARCH RECENT'))).toEqual([exists - 1, exists]);
  for (const s of [appender, observer, selector]) s.close();
});
