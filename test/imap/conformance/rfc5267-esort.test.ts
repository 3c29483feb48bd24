import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 5267 section 3 ESORT: SORT RETURN (MIN MAX COUNT ALL), answered in ESEARCH in the sort
 * order (MIN and MAX the first and last sorted, ALL's ranges only where the order ascends), and
 * RETURN (SAVE) keeping the result for `$` (RFC 5182) as SEARCH does.
 */

const servers = useServers();

section(
  'RFC 5267 ESORT',
  servers,
  [
    {
      name: 'each option, in sort order',
      commands: [
        'SORT RETURN (MIN) (SUBJECT) UTF-8 ALL',
        'SORT RETURN (MAX) (REVERSE DATE) UTF-8 ALL',
        'SORT RETURN (COUNT) (FROM) UTF-8 SEEN',
        'SORT RETURN (ALL) (SIZE) UTF-8 ALL',
        'SORT RETURN (MIN MAX COUNT ALL) (DISPLAYFROM ARRIVAL) UTF-8 UNSEEN',
      ],
    },
    {
      name: 'ascending runs as ranges, RETURN () is ALL',
      commands: ['SORT RETURN (ALL) (ARRIVAL) UTF-8 ALL', 'SORT RETURN () (REVERSE ARRIVAL) UTF-8 2:9'],
    },
    {
      name: 'UID SORT RETURN',
      commands: ['UID SORT RETURN (MIN MAX COUNT ALL) (DATE) UTF-8 ALL', 'UID SORT RETURN () (TO) UTF-8 SEEN'],
    },
    {
      name: 'no match: COUNT 0, no MIN, MAX or ALL',
      commands: [
        'SORT RETURN (MIN MAX COUNT ALL) (DATE) UTF-8 SUBJECT nothing-like-this',
        'UID SORT RETURN (MIN) (DATE) UTF-8 DELETED',
      ],
    },
    {
      name: 'with MODSEQ',
      commands: [
        'SORT RETURN (ALL) (SUBJECT) UTF-8 MODSEQ 1',
        'SORT RETURN (MIN) (REVERSE SUBJECT) UTF-8 MODSEQ 1',
        'UID SORT RETURN (MAX COUNT) (SIZE) UTF-8 MODSEQ 1',
      ],
    },
    {
      name: 'SAVE alone answers nothing; $ holds the sorted result, or its first and last with MIN and MAX',
      commands: [
        'SORT RETURN (SAVE) (REVERSE SIZE) UTF-8 SEEN',
        'SEARCH $',
        'UID SORT RETURN (SAVE MIN MAX) (SUBJECT) UTF-8 ALL',
        'UID SEARCH $',
        'SORT RETURN (SAVE COUNT MIN) (DATE) UTF-8 UNSEEN',
        'SEARCH $',
        'SORT RETURN (ALL) (DATE) UTF-8 $',
      ],
    },
    {
      name: 'a SORT that saves and is answered BAD keeps $',
      commands: ['SEARCH RETURN (SAVE) 1:3', 'SORT RETURN (SAVE) (DATE) UTF-8 ALL BOGUS', 'SEARCH $'],
    },
    {
      name: 'errors',
      commands: [
        'SORT RETURN (FIRST) (DATE) UTF-8 ALL',
        'SORT RETURN ALL (DATE) UTF-8 ALL',
        'SORT RETURN (MIN) (DATE) UTF-8',
        'SORT RETURN (MIN)',
      ],
    },
  ],
  ['EXAMINE INBOX'],
);

test('ESORT advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('ESORT');
  }
});
