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

section(
  'RFC 5182 SEARCHRES',
  servers,
  [
    {
      name: 'SAVE alone answers nothing; $ names the saved messages in FETCH and SEARCH, UID or not',
      commands: [
        'SEARCH RETURN (SAVE) SEEN',
        'FETCH $ (FLAGS)',
        'UID FETCH $ (FLAGS)',
        'SEARCH $',
        'UID SEARCH UID $ UNSEEN',
        'SEARCH RETURN (COUNT) NOT $',
      ],
    },
    {
      name: 'SAVE with other options: MIN or MAX alone save only those',
      commands: [
        'SEARCH RETURN (SAVE MIN MAX) NOT SEEN',
        'UID FETCH $ (UID)',
        'UID SEARCH RETURN (SAVE MAX COUNT) SEEN',
        'FETCH $ (UID)',
        'SEARCH RETURN (ALL SAVE) 2:5',
        'SEARCH $',
      ],
    },
    {
      name: 'an empty $ before any SAVE; a SAVE answered BAD leaves $ as it was',
      commands: [
        'FETCH $ (UID)',
        'SEARCH $',
        'SEARCH RETURN (SAVE) 2:3',
        'SEARCH RETURN (SAVE) BEFORE soon',
        'FETCH $ (UID)',
      ],
    },
    { name: '$ is a whole sequence set', commands: ['FETCH $,1 (UID)', 'FETCH $:2 (UID)', 'SEARCH $ $'] },
    {
      name: 'STORE and UID STORE on $',
      setup: ['SELECT Drafts'],
      commands: [
        'SEARCH RETURN (SAVE) ALL',
        'STORE $ +FLAGS (\\Flagged)',
        'UID STORE $ -FLAGS.SILENT (\\Flagged)',
        'FETCH 1:* (FLAGS)',
      ],
    },
    {
      name: 'COPY, MOVE and UID EXPUNGE on an empty $',
      setup: ['SELECT Drafts'],
      commands: ['SEARCH RETURN (SAVE) DELETED', 'COPY $ Trash', 'UID COPY $ Trash', 'MOVE $ Trash', 'UID EXPUNGE $'],
    },
  ],
  ['EXAMINE INBOX'],
);

/**
 * Not differential: Dovecot answers an unknown charset with a bare [BADCHARSET] and SELECT with
 * QRESYNC's [CLOSED], which the cases compare; what $ holds after them is checked on the bridge.
 */
test('$ is empty after a SAVE answered NO, and after SELECT, EXAMINE, UNSELECT', async () => {
  const { bridge } = servers.current;
  const s = await rawSession(bridge.port, bridge.user, bridge.password);
  const saved = async () => (await s.run('SEARCH $')).split('\r\n')[0];
  try {
    await s.run('EXAMINE INBOX');
    await s.run('SEARCH RETURN (SAVE) 1:2');
    expect(await saved()).toBe('* SEARCH 1 2');
    expect(await s.run('SEARCH RETURN (SAVE) CHARSET X-NO-SUCH ALL')).toMatch(/^t\d+ NO \[BADCHARSET/m);
    expect(await saved()).toBe('* SEARCH');
    for (const reselect of ['EXAMINE INBOX', 'SELECT INBOX', 'UNSELECT']) {
      await s.run('SEARCH RETURN (SAVE) 1:2');
      expect(await saved()).toBe('* SEARCH 1 2');
      await s.run(reselect);
      if (reselect === 'UNSELECT') await s.run('EXAMINE INBOX');
      expect(await saved()).toBe('* SEARCH');
    }
  } finally {
    s.close();
  }
});

test('ESEARCH and SEARCHRES advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('ESEARCH');
    expect(capabilities).toContain('SEARCHRES');
  }
});
