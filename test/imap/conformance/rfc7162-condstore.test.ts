import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/** RFC 7162 3.1.3: UNCHANGEDSINCE 0 always fails, and the message is reported MODIFIED (as Dovecot 2.3 answers). */

const c = useConformance();

test('STORE (UNCHANGEDSINCE 0) changes nothing and answers MODIFIED', async () => {
  const s = await c.session('INBOX');
  const before = untagged(await s.run('FETCH 1 (FLAGS)'));
  const answer = await s.run('STORE 1 (UNCHANGEDSINCE 0) +FLAGS (\\Flagged)');
  expect(status(answer)).toMatch(/^OK \[MODIFIED 1\]/);
  expect(untagged(await s.run('FETCH 1 (FLAGS)'))).toEqual(before);
  s.close();
});

test('UID STORE (UNCHANGEDSINCE 0) answers MODIFIED with the UID', async () => {
  const s = await c.session('INBOX');
  const uid = /UID (\d+)/.exec(untagged(await s.run('FETCH 2 (UID)'))[0])?.[1];
  const answer = await s.run(`UID STORE ${uid} (UNCHANGEDSINCE 0) -FLAGS (\\Seen)`);
  expect(status(answer)).toMatch(new RegExp(`^OK \\[MODIFIED ${uid}\\]`));
  s.close();
});

test('UNCHANGEDSINCE at the current MODSEQ succeeds', async () => {
  const s = await c.session('INBOX');
  // the FETCH line: OK [HIGHESTMODSEQ] comes first, as this FETCH enables CONDSTORE
  const modseq = /FETCH \(MODSEQ \((\d+)\)/.exec(await s.run('FETCH 3 (MODSEQ)'))?.[1];
  const answer = await s.run(`STORE 3 (UNCHANGEDSINCE ${modseq}) +FLAGS (\\Flagged)`);
  expect(status(answer)).toMatch(/^OK/);
  expect(status(answer)).not.toMatch(/MODIFIED/);
  expect(untagged(await s.run('FETCH 3 (FLAGS)'))[0]).toMatch(/\\Flagged/);
  s.close();
});

test('the first CONDSTORE-enabling command in a selected mailbox announces OK [HIGHESTMODSEQ], as Dovecot does (3.1; imaptest esearch-condstore)', async () => {
  const observer = await c.session();
  const enablers = [
    'FETCH 1 (MODSEQ)',
    'SEARCH MODSEQ 1',
    'STORE 1 (UNCHANGEDSINCE 0) +FLAGS (\\Flagged)',
    'STATUS INBOX (HIGHESTMODSEQ)',
  ];
  for (const enabling of enablers) {
    const highest = /HIGHESTMODSEQ (\d+)/.exec(await observer.run('STATUS INBOX (HIGHESTMODSEQ)'))?.[1];
    const s = await c.session('INBOX');
    const announced = (answer: string) => untagged(answer).filter((l) => /^OK \[HIGHESTMODSEQ /.test(l));
    expect(announced(await s.run(enabling)), enabling).toEqual([
      expect.stringMatching(`^OK \\[HIGHESTMODSEQ ${highest}\\]`),
    ]);
    // enabled once per session
    expect(announced(await s.run(enabling)), enabling).toEqual([]);
    s.close();
  }
  observer.close();
});

test('ESEARCH with MIN or MAX alone gives the MODSEQ of the messages it returns, ALL the highest of all (RFC 7162 3.1.5; imaptest esearch-condstore)', async () => {
  const s = await c.session('INBOX');
  for (const n of [5, 7, 6]) expect(status(await s.run(`STORE ${n} +FLAGS (\\Answered)`))).toMatch(/^OK/);
  const modseq = async (n: number) => /FETCH \(MODSEQ \((\d+)\)/.exec(await s.run(`FETCH ${n} (MODSEQ)`))?.[1];
  const [m5, m6, m7] = [await modseq(5), await modseq(6), await modseq(7)];
  const esearch = async (returns: string) =>
    untagged(await s.run(`SEARCH RETURN (${returns}) 5:7 MODSEQ "/flags/\\\\answered" all 1`)).find((l) =>
      l.startsWith('ESEARCH'),
    );
  expect(await esearch('MIN')).toMatch(new RegExp(`MIN 5 MODSEQ ${m5}$`));
  expect(await esearch('MAX')).toMatch(new RegExp(`MAX 7 MODSEQ ${m7}$`));
  expect(await esearch('MIN MAX')).toMatch(new RegExp(`MIN 5 MAX 7 MODSEQ ${Math.max(Number(m5), Number(m7))}$`));
  expect(await esearch('ALL')).toMatch(new RegExp(`ALL 5:7 MODSEQ ${m6}$`));
  s.close();
});

test('ESORT with MIN or MAX alone gives the MODSEQ of the first or last message in sort order, as ESEARCH does (RFC 5267 3, RFC 7162 3.1.5)', async () => {
  const s = await c.session('INBOX');
  for (const n of [5, 7, 6]) expect(status(await s.run(`STORE ${n} +FLAGS (\\Answered)`))).toMatch(/^OK/);
  const modseq = async (n: number) => /FETCH \(MODSEQ \((\d+)\)/.exec(await s.run(`FETCH ${n} (MODSEQ)`))?.[1];
  const [m5, m6, m7] = [await modseq(5), await modseq(6), await modseq(7)];
  const esort = async (returns: string) =>
    untagged(await s.run(`SORT RETURN (${returns}) (REVERSE ARRIVAL) UTF-8 5:7 MODSEQ 1`)).find((l) =>
      l.startsWith('ESEARCH'),
    );
  expect(await esort('MIN')).toMatch(new RegExp(`MIN 7 MODSEQ ${m7}$`));
  expect(await esort('MAX')).toMatch(new RegExp(`MAX 5 MODSEQ ${m5}$`));
  expect(await esort('ALL')).toMatch(new RegExp(`ALL 7,6,5 MODSEQ ${m6}$`));
  s.close();
});
