import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 5267 4.4: SEARCH and SORT RETURN (PARTIAL low:high), the matches at those positions of
 * the result (ascending for SEARCH, in sort order for SORT), as Dovecot answers. With UPDATE
 * (rfc5267-context.test.ts) the bridge offers CONTEXT=SEARCH, as Dovecot does, and CONTEXT=SORT.
 */

const servers = useServers();

section(
  'RFC 5267 PARTIAL',
  servers,
  [
    {
      name: 'SEARCH: positions, reversed, past the end, none',
      commands: [
        'SEARCH RETURN (PARTIAL 1:1) ALL',
        'SEARCH RETURN (PARTIAL 2:4) ALL',
        'SEARCH RETURN (PARTIAL 4:2) ALL',
        'SEARCH RETURN (PARTIAL 10:100) ALL',
        'SEARCH RETURN (PARTIAL 100:200) ALL',
        'SEARCH RETURN (PARTIAL 2:5) 1:2,4:5,9',
        'SEARCH RETURN (PARTIAL 1:3) SUBJECT nothing-like-this',
      ],
    },
    {
      name: 'UID SEARCH, with MIN, MAX, COUNT, SAVE, CONTEXT and MODSEQ',
      commands: [
        'UID SEARCH RETURN (PARTIAL 3:6) SEEN',
        'SEARCH RETURN (MIN MAX COUNT PARTIAL 2:3) UNSEEN',
        'SEARCH RETURN (CONTEXT PARTIAL 1:2) ALL',
        'SEARCH RETURN (CONTEXT) ALL',
        'SEARCH RETURN (PARTIAL 1:2 MIN) MODSEQ 1',
        'SEARCH RETURN (PARTIAL 90:99) MODSEQ 1',
      ],
    },
    {
      name: 'SAVE keeps the messages returned, all of them with COUNT',
      commands: [
        'SEARCH RETURN (SAVE PARTIAL 2:3) ALL',
        'SEARCH $',
        'SEARCH RETURN (SAVE PARTIAL 2:3 MIN) ALL',
        'SEARCH $',
        'SEARCH RETURN (SAVE PARTIAL 2:3 COUNT) ALL',
        'SEARCH $',
        'SORT RETURN (SAVE PARTIAL 2:3) (REVERSE ARRIVAL) UTF-8 ALL',
        'SEARCH $',
      ],
    },
    {
      name: 'SORT: positions in sort order',
      commands: [
        'SORT RETURN (PARTIAL 2:4) (ARRIVAL) UTF-8 ALL',
        'SORT RETURN (PARTIAL 2:6) (REVERSE ARRIVAL) UTF-8 ALL',
        'SORT RETURN (PARTIAL 1:30) (SUBJECT) UTF-8 ALL',
        'UID SORT RETURN (COUNT PARTIAL 5:3) (REVERSE DATE) UTF-8 SEEN',
        'SORT RETURN (PARTIAL 50:60) (SIZE) UTF-8 ALL',
      ],
    },
    {
      name: 'errors',
      commands: [
        'SEARCH RETURN (PARTIAL 1) ALL',
        'SEARCH RETURN (PARTIAL 1:*) ALL',
        'SEARCH RETURN (PARTIAL *:1) ALL',
        'SEARCH RETURN (PARTIAL 0:3) ALL',
        'SEARCH RETURN (PARTIAL) ALL',
        'SEARCH RETURN (PARTIAL 1:2 ALL) ALL',
        'SEARCH RETURN (PARTIAL 1:2 PARTIAL 3:4) ALL',
        'SORT RETURN (PARTIAL 1:*) (ARRIVAL) UTF-8 ALL',
      ],
    },
  ],
  ['EXAMINE INBOX'],
);

test('CONTEXT=SEARCH is offered as Dovecot offers it, and CONTEXT=SORT', async () => {
  const contexts = async (server: { port: number; user: string; password: string }) => {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    return capabilities.filter((c) => c.startsWith('CONTEXT=')).sort();
  };
  expect(await contexts(servers.current.dovecot)).toEqual(['CONTEXT=SEARCH']);
  expect(await contexts(servers.current.bridge)).toEqual(['CONTEXT=SEARCH', 'CONTEXT=SORT']);
});
