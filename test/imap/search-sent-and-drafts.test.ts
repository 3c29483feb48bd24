import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * SEARCH per RFC 3501 6.4.4 on a draft, which only the bridge holds: SENT* compare the day
 * the Date header names in its own zone, BEFORE/ON/SINCE the INTERNALDATE's day, and
 * BODY/TEXT find words of a draft although the vendor's search never sees it.
 */

let h: Harness;
let s: RawSession;

/** Written late on 2 January in New York: already 3 January in UTC. Appended on 5 January. */
const draft = [
  'From: Ann <ann@example.test>',
  'Date: Mon, 02 Jan 2023 23:30:00 -0500',
  'Subject: plans',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Meet at the caf=C3=A9 near the zebra crossing.',
  '',
].join('\r\n');

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 5 } });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await s.append('Drafts', draft, '() "05-Jan-2023 10:00:00 +0000"')).toMatch(/OK \[APPENDUID/);
  expect(await s.run('SELECT Drafts')).toContain('* 1 EXISTS');
});

afterAll(async () => {
  s?.close();
  await h?.close();
});

const hits = async (criteria: string) => {
  const answer = await s.run(`SEARCH ${criteria}`);
  expect(answer).toMatch(/ OK /);
  return /^\* SEARCH(.*)\r\n/m.exec(answer)?.[1].trim() ?? null;
};

describe('RFC 3501 6.4.4 dates', () => {
  test.each([
    ['SENTON 2-Jan-2023', '1'],
    ['SENTON 3-Jan-2023', ''],
    ['SENTBEFORE 3-Jan-2023', '1'],
    ['SENTBEFORE 2-Jan-2023', ''],
    ['SENTSINCE 2-Jan-2023', '1'],
    ['SENTSINCE 3-Jan-2023', ''],
  ])('%s uses the Date header in its own zone', async (criteria, expected) => {
    expect(await hits(criteria)).toBe(expected);
  });

  test.each([
    ['ON 5-Jan-2023', '1'],
    ['ON 2-Jan-2023', ''],
    ['BEFORE 5-Jan-2023', ''],
    ['BEFORE 6-Jan-2023', '1'],
    ['SINCE 5-Jan-2023', '1'],
    ['SINCE 6-Jan-2023', ''],
  ])('%s uses INTERNALDATE', async (criteria, expected) => {
    expect(await hits(criteria)).toBe(expected);
  });
});

describe('RFC 3501 6.4.4 BODY and TEXT on what the bridge holds', () => {
  test.each([
    ['BODY zebra', '1'],
    ['BODY crossing', '1'],
    ['TEXT zebra', '1'],
    ['TEXT ann@example.test', '1'],
    ['BODY ann@example.test', ''],
    ['BODY giraffe', ''],
    ['NOT BODY zebra', ''],
  ])('SEARCH %s', async (criteria, expected) => {
    expect(await hits(criteria)).toBe(expected);
  });
});
