import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 3502 MULTIAPPEND into Drafts: several messages in one APPEND, stored all or none, the
 * OK carrying one APPENDUID with their UID set (RFC 4315). Messages go as LITERAL+ literals.
 */

const servers = useServers();

/** A message as a non-synchronising literal. */
const literal = (text: string) => `{${Buffer.byteLength(text)}+}\r\n${text}`;

const message = (subject: string) =>
  [
    'From: Ann <ann@example.test>',
    `Subject: ${subject}`,
    'Date: Mon, 02 Jan 2023 10:00:00 +0000',
    '',
    `${subject} body`,
    '',
  ].join('\r\n');

section('RFC 3502 MULTIAPPEND', servers, [
  {
    name: 'two messages, then three with flags and dates: each stored, one APPENDUID with the UID set',
    commands: [
      `APPEND Drafts ${literal(message('one'))} ${literal(message('two'))}`,
      `APPEND Drafts (\\Seen) ${literal(message('three'))} "05-Jan-2023 10:00:00 +0100" ${literal(message('four'))} (\\Flagged \\Answered) "06-Jan-2023 11:00:00 +0000" ${literal(message('five'))}`,
    ],
  },
  {
    name: 'the messages stored',
    setup: ['EXAMINE Drafts'],
    commands: ['FETCH 1:* (FLAGS INTERNALDATE BODY.PEEK[HEADER.FIELDS (SUBJECT)])'],
  },
  {
    name: 'messages followed by flags without their message: BAD, none stored',
    commands: [
      `APPEND Drafts ${literal(message('six'))} ${literal(message('seven'))} (\\Seen)`,
      'STATUS Drafts (MESSAGES UIDNEXT)',
    ],
  },
  {
    name: 'an empty second message: NO, none stored',
    commands: [`APPEND Drafts ${literal(message('eight'))} {0+}\r\n`, 'STATUS Drafts (MESSAGES UIDNEXT)'],
  },
  {
    name: 'a missing mailbox: NO [TRYCREATE], none stored',
    commands: [`APPEND Nowhere ${literal(message('nine'))} ${literal(message('ten'))}`],
  },
  {
    name: 'into the selected mailbox: EXISTS for both',
    setup: ['SELECT Drafts'],
    commands: [`APPEND Drafts ${literal(message('eleven'))} ${literal(message('twelve'))}`, 'FETCH 1:* (FLAGS)'],
  },
]);

test('MULTIAPPEND advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('MULTIAPPEND');
  }
});
