import { section, useServers } from './harness';

/** RFC 3501 6.3 mailbox commands a client opens a folder with. */

const servers = useServers();

const nonexistent = 'the bridge adds the RFC 5530 code [NONEXISTENT] to its NO; Dovecot 2.3 answers NO without a code';

section('RFC 3501 6.3.10 STATUS', servers, [
  {
    name: 'STATUS of mirrored folders',
    commands: ['STATUS INBOX (MESSAGES UIDNEXT UNSEEN)', 'STATUS Drafts (MESSAGES UIDNEXT UNSEEN)'],
  },
  { name: 'STATUS of an unknown folder', commands: ['STATUS Nowhere (MESSAGES)'], differs: nonexistent },
]);

section('RFC 3501 6.3.1 SELECT, 6.3.2 EXAMINE', servers, [
  { name: 'SELECT INBOX: FLAGS, EXISTS, RECENT, [UNSEEN n], UIDVALIDITY, UIDNEXT', commands: ['SELECT INBOX'] },
  { name: 'SELECT of an unknown folder', commands: ['SELECT Nowhere'], differs: nonexistent },
  { name: 'CLOSE after EXAMINE', setup: ['EXAMINE INBOX'], commands: ['CLOSE', 'FETCH 1 FLAGS'] },
]);
