import { expect, test } from 'vitest';
import { mailbox } from '../../support/bridge-harness';
import { status, useConformance } from '../../support/conformance';
import { rawSession } from '../../support/raw-session';

/**
 * RFC 7888 LITERAL+: the server advertises it and takes {n+} literals without a continuation.
 * A password sent that way never comes back in any server output. Dovecot 2.3 advertises
 * LITERAL+ too.
 */

const c = useConformance();

test('LITERAL+ is advertised', async () => {
  const s = await rawSession(c.h.bridge.ports.imap, mailbox);
  expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bLITERAL\+/m);
  s.close();
});

test('LOGIN with non-synchronizing literals logs in, without a continuation and without echoing the password', async () => {
  const s = await rawSession(c.h.bridge.ports.imap, mailbox);
  const user = Buffer.byteLength(mailbox);
  const pass = Buffer.byteLength(c.h.password);
  const answer = await s.exchange(
    `a1 LOGIN {${user}+}\r\n${mailbox} {${pass}+}\r\n${c.h.password}\r\n`,
    /^a1 (OK|NO|BAD).*\r\n/m,
  );
  expect(status(answer.replace(/^a1/m, 't1'))).toMatch(/^OK/);
  expect(answer).not.toMatch(/^\+/m);
  expect(await s.exchange('a2 NOOP\r\n', /^a2 (OK|NO|BAD).*\r\n/m)).toMatch(/^a2 OK/m);
  expect(s.transcript()).not.toContain(c.h.password);
  s.close();
});

test('a wrong password in a non-synchronizing literal is refused and never echoed', async () => {
  const s = await rawSession(c.h.bridge.ports.imap, mailbox);
  const wrong = `${c.h.password}-not`;
  const answer = await s.exchange(
    `a1 LOGIN ${mailbox} {${Buffer.byteLength(wrong)}+}\r\n${wrong}\r\n`,
    /^a1 (OK|NO|BAD).*\r\n/m,
  );
  expect(answer).toMatch(/^a1 NO/m);
  expect(await s.exchange('a2 NOOP\r\n', /^a2 (OK|NO|BAD).*\r\n/m)).toMatch(/^a2 OK/m);
  expect(s.transcript()).not.toContain(wrong);
  s.close();
});

test('an oversized non-synchronizing literal ends the connection instead of reading its bytes as commands', async () => {
  const s = await rawSession(c.h.bridge.ports.imap, mailbox);
  const secret = `${c.h.password}${'x'.repeat(2000)}`;
  const answer = await s.exchange(`a1 LOGIN ${mailbox} {${secret.length}+}\r\n${secret}\r\n`, /^\* BYE.*\r\n/m);
  expect(answer).toMatch(/^a1 NO/m);
  expect(s.transcript()).not.toContain(c.h.password);
  s.close();
});

test('an empty literal is an empty string, and the literals of the next command are read as before', async () => {
  const s = await rawSession(c.h.bridge.ports.imap, mailbox);
  const empty = await s.exchange(`a1 LOGIN ${mailbox} {0+}\r\n\r\n`, /^a1 (OK|NO|BAD).*\r\n/m);
  expect(empty).toMatch(/^a1 NO/m);
  const user = Buffer.byteLength(mailbox);
  const pass = Buffer.byteLength(c.h.password);
  const answer = await s.exchange(
    `a2 LOGIN {${user}+}\r\n${mailbox} {${pass}+}\r\n${c.h.password}\r\n`,
    /^a2 (OK|NO|BAD).*\r\n/m,
  );
  expect(answer).toMatch(/^a2 OK/m);
  s.close();
});
