import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 6.4.4 SEARCH: NIL as a string argument, and CHARSET. Dovecot 2.3 answers the same,
 * except that it converts many more charsets (KOI8-R, ...) and sends a bare [BADCHARSET]; the
 * bridge matches UTF-8 only and lists what it takes, as RFC 3501 7.1 allows.
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

test('an unknown charset is refused with BADCHARSET and the supported ones', async () => {
  const s = await c.session('INBOX');
  const answer = await s.run('SEARCH CHARSET X-NOSUCH ALL');
  expect(status(answer)).toMatch(/^NO \[BADCHARSET \(UTF-8 US-ASCII\)\]/);
  expect(untagged(answer)).toEqual([]);
  s.close();
});
