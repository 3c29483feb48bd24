import { section, useServers } from './harness';

/** RFC 3501 6.4.6 STORE: each case leaves the flags as it found them. */

const servers = useServers();

section(
  'RFC 3501 6.4.6 STORE',
  servers,
  [
    { name: '+FLAGS and -FLAGS', commands: ['STORE 2 +FLAGS (\\Flagged)', 'STORE 2 -FLAGS (\\Flagged)'] },
    {
      name: '.SILENT',
      commands: ['STORE 3 +FLAGS.SILENT (\\Answered)', 'FETCH 3 FLAGS', 'STORE 3 -FLAGS.SILENT (\\Answered)'],
    },
    { name: 'UID STORE', commands: ['UID STORE 4 +FLAGS (\\Seen)', 'UID STORE 4 -FLAGS (\\Seen)'] },
    { name: 'STORE in a read-only selection', setup: ['EXAMINE INBOX'], commands: ['STORE 1 +FLAGS (\\Flagged)'] },
  ],
  ['SELECT INBOX'],
);

section(
  'RFC 3501 6.4.5 FETCH sets \\Seen',
  servers,
  [
    {
      name: 'RFC822.TEXT',
      commands: ['STORE 5 -FLAGS (\\Seen)', 'FETCH 5 RFC822.TEXT', 'FETCH 5 FLAGS', 'STORE 5 -FLAGS (\\Seen)'],
    },
    {
      name: 'BODY[TEXT]',
      commands: ['STORE 5 -FLAGS (\\Seen)', 'FETCH 5 BODY[TEXT]', 'FETCH 5 FLAGS', 'STORE 5 -FLAGS (\\Seen)'],
    },
    {
      name: 'BODY.PEEK[TEXT] does not',
      commands: ['STORE 5 -FLAGS (\\Seen)', 'FETCH 5 BODY.PEEK[TEXT]', 'FETCH 5 FLAGS'],
    },
  ],
  ['SELECT INBOX'],
);
