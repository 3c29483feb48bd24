import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 7.2.6 / 7.1 (FLAGS, PERMANENTFLAGS): every keyword a FETCH FLAGS shows is in the
 * folder's FLAGS as last announced; a keyword stored for the first time is announced with
 * FLAGS and PERMANENTFLAGS before the command completes, to the storing session and to others.
 * Dovecot 2.3 does the same, for STORE .SILENT too.
 */

const c = useConformance();

/** Walks a session's transcript: each FETCH's keywords must be in the FLAGS announced before it. */
function unannouncedKeywords(transcript: string): string[] {
  let announced = new Set<string>();
  const missing: string[] = [];
  for (const line of transcript.split('\r\n')) {
    const flags = /^\* FLAGS \(([^)]*)\)/.exec(line);
    if (flags) announced = new Set(flags[1].split(' ').map((f) => f.toLowerCase()));
    const fetched = /^\* \d+ FETCH .*FLAGS \(([^)]*)\)/.exec(line);
    if (fetched)
      for (const f of fetched[1].split(' '))
        if (f && !f.startsWith('\\') && !announced.has(f.toLowerCase())) missing.push(f);
  }
  return missing;
}

test('a keyword stored for the first time is announced before the FETCH and the tagged OK', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('STORE 1 +FLAGS (Project)');
  expect(status(answer)).toMatch(/^OK/);
  const lines = untagged(answer);
  const flags = lines.findIndex((l) => /^FLAGS \(.*\bProject\b.*\)$/.test(l));
  const permanent = lines.findIndex((l) => /^OK \[PERMANENTFLAGS \(.*\bProject\b.*\\\*\)\]/.test(l));
  const fetch = lines.findIndex((l) => /^1 FETCH .*\bProject\b/.test(l));
  expect(flags).toBeGreaterThanOrEqual(0);
  expect(permanent).toBeGreaterThan(flags);
  expect(fetch).toBeGreaterThan(permanent);
  s.close();
});

test('STORE .SILENT of a new keyword still announces it', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('STORE 2 +FLAGS.SILENT ($Bridged)');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toContainEqual(expect.stringMatching(/^FLAGS \(.*\$Bridged.*\)$/));
  s.close();
});

test("other sessions learn the keyword before a FETCH shows it, and SELECT lists the folder's keywords", async () => {
  const other = await c.session('INBOX');
  const s = await c.session('INBOX');
  expect(status(await s.run('STORE 3 +FLAGS (Roadmap)'))).toMatch(/^OK/);
  expect(status(await other.run('NOOP'))).toMatch(/^OK/);
  expect(untagged(await other.run('FETCH 1:* (FLAGS)'))).toContainEqual(expect.stringMatching(/Roadmap/));
  expect(unannouncedKeywords(other.transcript())).toEqual([]);

  const fresh = await c.session();
  const selected = untagged(await fresh.run('SELECT INBOX'));
  expect(selected).toContainEqual(
    expect.stringMatching(/^FLAGS \(.*\bProject\b.*\bRoadmap\b.*\)$|^FLAGS \(.*\bRoadmap\b.*\bProject\b.*\)$/),
  );
  for (const session of [other, s, fresh]) session.close();
});

test('NIL as a flag is the keyword NIL, bare or in a list, as Dovecot takes it (imaptest nil)', async () => {
  const s = await c.session('INBOX');
  expect(status(await s.run('STORE 4 +FLAGS NIL'))).toMatch(/^OK/);
  expect(untagged(await s.run('FETCH 4 (FLAGS)'))).toContainEqual(
    expect.stringMatching(/^4 FETCH \(FLAGS \(.*\bNIL\b.*\)\)$/),
  );
  expect(status(await s.run('STORE 4 -FLAGS (NIL)'))).toMatch(/^OK/);
  expect(untagged(await s.run('FETCH 4 (FLAGS)'))).not.toContainEqual(expect.stringMatching(/\bNIL\b/));
  const appended = await s.append('Drafts', 'Subject: nil keyword\r\n\r\ntext\r\n', '(NIL)');
  expect(status(appended)).toMatch(/^OK/);
  const uid = /APPENDUID \d+ (\d+)/.exec(appended)?.[1];
  expect(status(await s.run('EXAMINE Drafts'))).toMatch(/^OK/);
  expect(untagged(await s.run(`UID FETCH ${uid} (FLAGS)`))).toContainEqual(expect.stringMatching(/FLAGS \(NIL\b/));
  s.close();
});
