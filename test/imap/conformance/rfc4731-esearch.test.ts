import { section, useServers } from './harness';

/** RFC 4731 ESEARCH: SEARCH RETURN (MIN MAX COUNT ALL), answered as Dovecot answers. */

const servers = useServers();

section(
  'RFC 4731 ESEARCH',
  servers,
  [
    {
      name: 'every return option, with and without UID',
      commands: [
        'SEARCH RETURN (MIN MAX COUNT ALL) UNSEEN',
        'UID SEARCH RETURN (MIN MAX COUNT ALL) ALL',
        'UID SEARCH RETURN (ALL) UID 3:6',
      ],
    },
    { name: 'RETURN () is ALL', commands: ['SEARCH RETURN () FLAGGED', 'UID SEARCH RETURN () SEEN'] },
    {
      name: 'one option at a time',
      commands: ['SEARCH RETURN (MIN) ALL', 'SEARCH RETURN (MAX) ALL', 'UID SEARCH RETURN (COUNT) NOT SEEN'],
    },
    {
      name: 'no match: only COUNT 0 is shown',
      commands: ['SEARCH RETURN (MIN MAX COUNT ALL) LARGER 100000000', 'UID SEARCH RETURN () LARGER 100000000'],
    },
    { name: 'with CHARSET', commands: ['SEARCH RETURN (COUNT) CHARSET UTF-8 ALL'] },
    { name: 'with a MODSEQ criterion (RFC 7162 3.1.5)', commands: ['UID SEARCH RETURN (MIN MAX) MODSEQ 1'] },
    { name: 'an unknown option is a syntax error', commands: ['SEARCH RETURN (MIN BOGUS) ALL'] },
  ],
  ['EXAMINE INBOX'],
);
