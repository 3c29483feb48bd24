import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/** RFC 4731 ESEARCH: SEARCH RETURN (MIN MAX COUNT ALL), and RFC 5182 SEARCHRES: RETURN (SAVE) and `$`. */

const servers = useServers();

section(
  'RFC 4731 ESEARCH',
  servers,
  [
    {
      name: 'each option',
      commands: [
        'SEARCH RETURN (MIN) SEEN',
        'SEARCH RETURN (MAX) SEEN',
        'SEARCH RETURN (COUNT) SEEN',
        'SEARCH RETURN (ALL) SEEN',
        'SEARCH RETURN (MIN MAX COUNT ALL) UNSEEN',
      ],
    },
    { name: 'RETURN () is ALL', commands: ['SEARCH RETURN () ALL', 'SEARCH RETURN () 2:4,7,9:12'] },
    {
      name: 'UID SEARCH RETURN',
      commands: [
        'UID SEARCH RETURN (MIN MAX COUNT ALL) ALL',
        'UID SEARCH RETURN (ALL) SEEN',
        'UID SEARCH RETURN () 3:6',
      ],
    },
    {
      name: 'no match: COUNT 0, no MIN, MAX or ALL',
      commands: ['SEARCH RETURN (MIN MAX COUNT ALL) SUBJECT nothing-like-this', 'UID SEARCH RETURN (MIN) DELETED'],
    },
    { name: 'with CHARSET', commands: ['SEARCH RETURN (COUNT) CHARSET UTF-8 SUBJECT re'] },
    {
      name: 'errors',
      commands: [
        'SEARCH RETURN (FIRST) ALL',
        'SEARCH RETURN ALL',
        'SEARCH RETURN (MIN)',
        'SEARCH ALL RETURN (MIN)',
        'SEARCH',
        'SEARCH CHARSET UTF-8',
      ],
    },
  ],
  ['EXAMINE INBOX'],
);

test('ESEARCH advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('ESEARCH');
  }
});
