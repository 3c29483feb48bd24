import { section, useServers } from './harness';

/** RFC 5256 SORT, from local state, answered as Dovecot answers on the same messages. */

const servers = useServers();

const keys = ['ARRIVAL', 'CC', 'DATE', 'FROM', 'SIZE', 'SUBJECT', 'TO'];

section(
  'RFC 5256 SORT: vendor messages',
  servers,
  [
    { name: 'each key', commands: keys.map((k) => `SORT (${k}) UTF-8 ALL`) },
    { name: 'each key reversed, by UID', commands: keys.map((k) => `UID SORT (REVERSE ${k}) UTF-8 ALL`) },
    {
      name: 'several keys, with search criteria',
      commands: [
        'SORT (SUBJECT REVERSE DATE) UTF-8 ALL',
        'UID SORT (FROM SIZE) UTF-8 UNSEEN',
        'SORT (TO) US-ASCII SEEN',
      ],
    },
    { name: 'syntax errors', commands: ['SORT (BOGUS) UTF-8 ALL', 'SORT (REVERSE) UTF-8 ALL', 'SORT () UTF-8 ALL'] },
    {
      name: 'a charset outside the four search strings may be in',
      commands: ['SORT (DATE) KOI8-R ALL'],
      differs:
        'NO [BADCHARSET (UTF-8 US-ASCII ISO-8859-1 WINDOWS-1252)], as for SEARCH; Dovecot reads any charset iconv knows',
    },
  ],
  ['EXAMINE INBOX'],
);

section(
  'RFC 5256 SORT: drafts',
  servers,
  [{ name: 'each key', commands: keys.map((k) => `SORT (${k}) UTF-8 ALL`) }],
  ['EXAMINE Drafts'],
);
