import { section, useServers } from './harness';

/**
 * Label folders a client creates, renames and deletes (RFC 3501 6.3.3 CREATE, 6.3.4 DELETE,
 * 6.3.5 RENAME) against Dovecot doing the same to its mailboxes. The cases change state on both
 * servers, in this order. Folder management outside Labels/ is in intentional-differences.
 */

const servers = useServers();

section('RFC 3501 6.3.3 CREATE of a label folder', servers, [
  {
    name: 'an empty folder, listed and counted at once',
    commands: ['CREATE Labels/Fresh', 'LIST "" "Labels/Fresh"', 'STATUS Labels/Fresh (MESSAGES UIDNEXT UNSEEN)'],
  },
  { name: 'a name that exists', commands: ['CREATE Labels/Fresh', 'CREATE INBOX', 'CREATE Archive'] },
  {
    name: 'a name that differs in letter case only is another folder',
    commands: ['CREATE Labels/fresh', 'LIST "" "Labels/%resh"'],
  },
  {
    name: 'a modified UTF-7 name',
    commands: ['CREATE "Labels/&ANw-ber"', 'LIST "" "Labels/&ANw-ber"', 'STATUS "Labels/&ANw-ber" (MESSAGES)'],
  },
  {
    name: 'a malformed modified UTF-7 name',
    commands: ['CREATE "Labels/a&b"', 'LIST "" "Labels/a*"'],
    differs: 'the bridge adds the RFC 5530 code [CANNOT] to its NO; Dovecot 2.3 answers NO without a code',
  },
  {
    name: 'a name ending in the hierarchy delimiter',
    commands: ['CREATE Labels/Declared/', 'LIST "" "Labels/Declared*"'],
    differs:
      'the bridge ignores the declaration (RFC 3501 6.3.3 lets a server that needs none ignore it) and answers OK [CANNOT]; Dovecot makes a \\Noselect Labels/Declared',
  },
  {
    name: 'a name below one that is no folder',
    commands: ['CREATE Labels/Parent/Child', 'LIST "" "Labels/Parent*"'],
  },
  {
    name: 'COPY into it',
    setup: ['SELECT INBOX'],
    commands: ['COPY 1:2 Labels/Fresh'],
    differs:
      'the label is also a keyword of the messages where they are: the session hears FETCH FLAGS of the copied messages and FLAGS with the new keyword',
  },
  {
    name: 'what it holds after the COPY',
    commands: ['STATUS Labels/Fresh (MESSAGES UIDNEXT)', 'STATUS INBOX (MESSAGES)'],
  },
]);

section('RFC 3501 6.3.5 RENAME of a label folder', servers, [
  {
    name: 'to a new name',
    commands: [
      'RENAME Labels/Fresh Labels/Renamed',
      'LIST "" "Labels/Fresh"',
      'LIST "" "Labels/Renamed"',
      'STATUS Labels/Renamed (MESSAGES)',
      'STATUS INBOX (MESSAGES)',
    ],
  },
  { name: 'to a name that exists', commands: ['RENAME Labels/Renamed "Labels/&ANw-ber"'] },
  { name: 'a folder that does not exist', commands: ['RENAME Labels/Nothing Labels/Something'] },
]);

section('RFC 3501 6.3.4 DELETE of a label folder', servers, [
  {
    name: 'with messages: the folder goes, the messages stay in INBOX',
    commands: ['DELETE Labels/Renamed', 'LIST "" "Labels/Renamed"', 'STATUS INBOX (MESSAGES)'],
  },
  {
    name: 'the deleted folder is missing',
    commands: ['STATUS Labels/Renamed (MESSAGES)', 'SELECT Labels/Renamed'],
    differs:
      'the bridge adds the RFC 5530 code [NONEXISTENT] to its NO, as for any missing folder; Dovecot 2.3 answers NO without a code',
  },
  { name: 'an empty one', commands: ['DELETE "Labels/&ANw-ber"', 'LIST "" "Labels/&ANw-ber"'] },
  { name: 'a folder that does not exist', commands: ['DELETE Labels/Renamed'] },
]);
