import { section, useServers } from './harness';

/** RFC 3501 6.4.4 SEARCH, on vendor messages and on drafts the bridge holds. */

const servers = useServers();

section(
  'RFC 3501 6.4.4 SEARCH: flags, sizes, headers',
  servers,
  [
    { name: 'ALL, SEEN, UNSEEN, FLAGGED', commands: ['SEARCH ALL', 'SEARCH SEEN', 'SEARCH UNSEEN', 'SEARCH FLAGGED'] },
    { name: 'keywords', commands: ['SEARCH KEYWORD $Important', 'SEARCH KEYWORD Later', 'SEARCH UNKEYWORD Later'] },
    { name: 'LARGER, SMALLER', commands: ['SEARCH LARGER 20000', 'SEARCH SMALLER 3000'] },
    { name: 'SUBJECT, FROM, TO', commands: ['SEARCH SUBJECT re', 'SEARCH FROM example', 'SEARCH TO sandbox.test'] },
    { name: 'HEADER', commands: ['SEARCH HEADER Message-ID sandbox', 'SEARCH HEADER List-Unsubscribe ""'] },
    { name: 'NOT, OR', commands: ['SEARCH NOT SEEN', 'SEARCH OR FLAGGED KEYWORD Later', 'SEARCH NOT OR SEEN FLAGGED'] },
    { name: 'CHARSET anywhere but first is a syntax error', commands: ['SEARCH UNSEEN CHARSET UTF-8', 'SEARCH ALL'] },
    { name: 'UID SEARCH and UID sets', commands: ['UID SEARCH ALL', 'UID SEARCH UID 3:6', 'SEARCH 2:4'] },
    { name: 'BEFORE, ON, SINCE (INTERNALDATE)', commands: ['SEARCH SINCE 1-Jun-2025', 'SEARCH BEFORE 1-Jun-2025'] },
    {
      name: 'SENTBEFORE, SENTSINCE (Date header)',
      commands: ['SEARCH SENTSINCE 1-Jun-2025', 'SEARCH SENTBEFORE 1-Jun-2025'],
    },
  ],
  ['EXAMINE INBOX'],
);

section(
  'RFC 3501 6.4.4 SEARCH: drafts',
  servers,
  [
    {
      name: 'SENTON, SENTBEFORE, SENTSINCE take the Date header in its own zone',
      commands: [
        'SEARCH SENTON 2-Jan-2023',
        'SEARCH SENTON 3-Jan-2023',
        'SEARCH SENTBEFORE 3-Jan-2023',
        'SEARCH SENTSINCE 3-Jan-2023',
      ],
    },
    {
      name: 'ON, BEFORE, SINCE take INTERNALDATE',
      commands: ['SEARCH ON 5-Jan-2023', 'SEARCH ON 6-Jan-2023', 'SEARCH BEFORE 6-Jan-2023', 'SEARCH SINCE 6-Jan-2023'],
    },
    {
      name: 'BODY and TEXT',
      commands: [
        'SEARCH BODY zebra',
        'SEARCH BODY giraffe',
        'SEARCH TEXT plans',
        'SEARCH BODY plans',
        'SEARCH TEXT nothing-here',
      ],
    },
  ],
  ['EXAMINE Drafts'],
);
