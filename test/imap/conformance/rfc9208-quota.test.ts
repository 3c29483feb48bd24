import { expect, test } from 'vitest';
import { mailbox } from '../../support/bridge-harness';
import { useConformance } from '../../support/conformance';
import { rawSession } from '../../support/raw-session';

/**
 * RFC 9208: a server that advertises QUOTA must answer GETQUOTAROOT. The vendor has no quota,
 * so the bridge does not advertise QUOTA at all (clients then do not ask), like Dovecot 2.3
 * without its quota plugin.
 */

const c = useConformance();

test('QUOTA is not advertised, before or after login', async () => {
  const fresh = await rawSession(c.h.bridge.ports.imap, mailbox);
  expect(await fresh.run('CAPABILITY')).toMatch(/^\* CAPABILITY IMAP4rev1 /m);
  expect(fresh.transcript()).not.toMatch(/\bQUOTA\b/);
  fresh.close();
  const s = await c.session();
  const capability = await s.run('CAPABILITY');
  expect(capability).toMatch(/^\* CAPABILITY IMAP4rev1 /m);
  expect(capability).not.toMatch(/\bQUOTA\b/);
  s.close();
});
