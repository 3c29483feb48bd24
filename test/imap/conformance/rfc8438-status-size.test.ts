import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * STATUS=SIZE (RFC 8438): the sum of the RFC822.SIZEs of a folder's messages, against Dovecot
 * holding the same bytes; with other items (answered in a fixed order, as Dovecot does), and for
 * a folder not opened yet.
 */

const servers = useServers();

section('RFC 8438 STATUS SIZE', servers, [
  { name: 'SIZE of a folder not opened in the session', commands: ['STATUS Archive (SIZE)', 'STATUS Trash (SIZE)'] },
  {
    name: 'SIZE beside other items, of INBOX and a label folder',
    commands: ['STATUS INBOX (MESSAGES SIZE UNSEEN)', 'STATUS Labels/Later (SIZE MESSAGES)'],
  },
  { name: 'SIZE of a folder while another is selected', setup: ['EXAMINE INBOX'], commands: ['STATUS Drafts (SIZE)'] },
]);

test('both advertise STATUS=SIZE; SIZE is the sum of RFC822.SIZE', async () => {
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bSTATUS=SIZE\b/m);
    const size = Number(/SIZE (\d+)/.exec(await s.run('STATUS INBOX (SIZE)'))?.[1]);
    await s.run('EXAMINE INBOX');
    const sizes = [...(await s.run('FETCH 1:* (RFC822.SIZE)')).matchAll(/RFC822\.SIZE (\d+)/g)].map((m) =>
      Number(m[1]),
    );
    expect(sizes.length).toBeGreaterThan(0);
    expect(size).toBe(sizes.reduce((a, b) => a + b, 0));
    s.close();
  }
});
