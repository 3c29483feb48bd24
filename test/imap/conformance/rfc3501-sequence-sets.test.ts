import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 9 (sequence-set): "*" is a seq-number anywhere in a set, ranges may run downwards,
 * and 0 is not a sequence number. RFC 3501 6.4.8: "n:*" with n above the last UID still
 * means the last message. Dovecot 2.3 answers these the same way.
 */

const c = useConformance({ sandbox: { messages: 5 } });

async function messageCount(): Promise<number> {
  const s = await c.session();
  const answer = await s.run('EXAMINE INBOX');
  s.close();
  return Number(/^\* (\d+) EXISTS/m.exec(answer)?.[1]);
}

test('FETCH 1,* (UID) answers the first and the last message', async () => {
  const last = await messageCount();
  expect(last).toBeGreaterThan(1);
  const s = await c.session('INBOX');
  const answer = await s.run('FETCH 1,* (UID)');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer).map((l) => Number(l.split(' ')[0]))).toEqual([1, last]);
  s.close();
});

test('SEARCH *:1 matches every message', async () => {
  const last = await messageCount();
  const s = await c.session('INBOX');
  const answer = await s.run('SEARCH *:1');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([`SEARCH ${Array.from({ length: last }, (_, i) => i + 1).join(' ')}`]);
  s.close();
});

test('FETCH 0 is a syntax error', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('FETCH 0 (UID)');
  expect(status(answer)).toMatch(/^BAD/);
  expect(untagged(answer)).toEqual([]);
  s.close();
});

test('UID FETCH n:* with n above the last UID returns the last message', async () => {
  const s = await c.session('INBOX');
  const uids = untagged(await s.run('UID SEARCH ALL'))[0]
    .split(' ')
    .slice(1)
    .map(Number);
  const lastUid = Math.max(...uids);
  const answer = await s.run(`UID FETCH ${lastUid + 1000}:* (UID)`);
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([`${uids.length} FETCH (UID ${lastUid})`]);
  s.close();
});
