import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 6.3.8/6.3.9: list-mailbox may hold the wildcards % and * anywhere, not only alone.
 * Dovecot 2.3 answers the same (its hierarchy delimiter is ".", the bridge's "/").
 */

const c = useConformance();

test('LIST "" IN% lists INBOX', async () => {
  const s = await c.session();
  const answer = await s.run('LIST "" IN%');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([expect.stringMatching(/^LIST \([^)]*\) "\/" "?INBOX"?$/)]);
  s.close();
});

test('LIST "" Dr* lists Drafts', async () => {
  const s = await c.session();
  const answer = await s.run('LIST "" Dr*');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([expect.stringMatching(/^LIST \([^)]*\\Drafts[^)]*\) "\/" "?Drafts"?$/)]);
  s.close();
});

test('LSUB "" Drafts/% answers OK with the (no) children of Drafts', async () => {
  const s = await c.session();
  const answer = await s.run('LSUB "" Drafts/%');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([]);
  s.close();
});

test('LIST "" "" answers the delimiter with the empty root name, as RFC 3501 6.3.8 and Dovecot do', async () => {
  const s = await c.session();
  const answer = await s.run('LIST "" ""');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual(['LIST (\\Noselect) "/" ""']);
  s.close();
});
