import { section, useServers } from './harness';

/**
 * Where the bridge answers otherwise on purpose, because the vendor API cannot do what the
 * command asks (docs/conformance.md). Each case is asserted to still differ. They change
 * state, so they run in this order, the ones that make the servers part ways last.
 */

const servers = useServers();

section('RFC 3501 6.3 folder management the vendor lacks', servers, [
  {
    name: 'CREATE',
    commands: ['CREATE Projects', 'STATUS Projects (MESSAGES)'],
    differs: 'refused with NO [CANNOT]: the vendor API has no folder management',
  },
  {
    name: 'RENAME',
    commands: ['RENAME Archive Old', 'STATUS Old (MESSAGES)'],
    differs: 'refused with NO [CANNOT]: the vendor API has no folder management',
  },
]);

section('RFC 3501 6.3.11 APPEND', servers, [
  {
    name: 'APPEND to INBOX',
    commands: [
      { append: 'INBOX', message: 'From: ann@example.test\r\nSubject: appended\r\n\r\nhello\r\n', flags: '()' },
      'STATUS INBOX (MESSAGES)',
    ],
    differs: 'the vendor cannot store a message it did not deliver: only drafts and Sent copies are accepted',
  },
]);

section('RFC 3501 6.4.3 EXPUNGE, 6.4.7 COPY', servers, [
  {
    name: 'EXPUNGE inside Trash',
    setup: ['SELECT INBOX', 'MOVE 1 Trash', 'SELECT Trash'],
    commands: ['STORE 1:* +FLAGS.SILENT (\\Deleted)', 'EXPUNGE'],
    differs: 'refused with NO [CANNOT]: the vendor API has no permanent delete',
  },
  {
    name: 'EXPUNGE elsewhere moves to Trash',
    setup: ['SELECT INBOX'],
    commands: ['STORE 1 +FLAGS.SILENT (\\Deleted)', 'EXPUNGE', 'STATUS Trash (MESSAGES)'],
    differs: 'the message goes to Trash, as webmail deletes, instead of vanishing',
  },
  {
    name: 'COPY to a folder',
    setup: ['SELECT INBOX'],
    commands: ['COPY 1 Archive', 'STATUS INBOX (MESSAGES)'],
    differs: 'a vendor message lives in one folder: COPY moves it (copyToFolder "move")',
  },
]);

section('RFC 3501 6.3.4 DELETE', servers, [
  {
    name: 'DELETE',
    commands: ['DELETE Archive', 'STATUS Archive (MESSAGES)'],
    differs: 'refused with NO [CANNOT]: the vendor API has no folder management',
  },
]);
