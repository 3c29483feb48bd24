import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 6.4.4 SEARCH: NIL as a string argument, and CHARSET. Dovecot 2.3 answers the same,
 * except that it converts many more charsets (KOI8-R, ...) and sends a bare [BADCHARSET]; the
 * bridge takes UTF-8, US-ASCII, ISO-8859-1 and Windows-1252 and lists them, as RFC 3501 7.1 allows.
 */

const c = useConformance({ sandbox: { messages: 12 } });

test('SEARCH SUBJECT NIL searches for the text "NIL" and the session goes on', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('SEARCH SUBJECT NIL');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([expect.stringMatching(/^SEARCH/)]);
  expect(status(await s.run('NOOP'))).toMatch(/^OK/);
  s.close();
});

test('CHARSET UTF-8 and CHARSET US-ASCII give the same hits as no CHARSET', async () => {
  const s = await c.session('INBOX');
  expect(untagged(await s.run('SEARCH ALL'))[0]).toMatch(/^SEARCH \d/);
  for (const criteria of ['ALL', 'UNSEEN', 'SUBJECT e', 'OR SEEN FLAGGED']) {
    const plain = untagged(await s.run(`SEARCH ${criteria}`));
    expect(untagged(await s.run(`SEARCH CHARSET UTF-8 ${criteria}`))).toEqual(plain);
    expect(untagged(await s.run(`SEARCH CHARSET US-ASCII ${criteria}`))).toEqual(plain);
    expect(untagged(await s.run(`UID SEARCH CHARSET utf-8 ${criteria}`))).toEqual(
      untagged(await s.run(`UID SEARCH ${criteria}`)),
    );
  }
  s.close();
});

test('a search string in invalid UTF-8 is a syntax error, as in Dovecot', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run(Buffer.from('SEARCH CHARSET UTF-8 SUBJECT {2+}\r\n\xff\xfe', 'latin1'));
  expect(status(answer)).toMatch(/^BAD/);
  expect(status(await s.run('NOOP'))).toMatch(/^OK/);
  s.close();
});

test('an unknown charset is refused with BADCHARSET and the supported ones', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('SEARCH CHARSET X-NOSUCH ALL');
  expect(status(answer)).toMatch(/^NO \[BADCHARSET \(UTF-8 US-ASCII ISO-8859-1 WINDOWS-1252\)\]/);
  expect(untagged(answer)).toEqual([]);
  s.close();
});
