import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 4469 CATENATE into Drafts, against Dovecot holding the same messages: messages built from
 * TEXT parts and IMAP URLs (RFC 5092) of INBOX messages (sections, MIME headers, header fields,
 * partial ranges, attachments the bridge reads from the vendor), then fetched back and
 * compared byte for byte; invalid or unresolvable URLs are NO [BADURL url], all or none with
 * MULTIAPPEND; a literal8 TEXT part makes the message binary input only as its first part.
 */

const servers = useServers();

/** Text as a non-synchronising literal. */
const literal = (text: string) => `{${Buffer.byteLength(text)}+}\r\n${text}`;
/** Bytes (latin1) as a non-synchronising literal8. */
const literal8 = (bytes: string) => `~{${Buffer.byteLength(bytes, 'latin1')}+}\r\n${bytes}`;

const header = 'From: Ann <ann@example.test>\r\nSubject: built\r\n\r\n';

/** A message whose attachment is binary: stored base64 encoded when it comes as binary input. */
const binary = [
  'From: Ann <ann@example.test>',
  'Subject: binary',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b"',
  '',
  '--b',
  'Content-Type: application/octet-stream',
  'Content-Transfer-Encoding: binary',
  '',
  '\x00\x01\xff\x80 bytes',
  '--b--',
  '',
].join('\r\n');

/** URLs of every section kind of INBOX message `uid`, one message each. */
const sectionsOf = (uid: number) => [
  `APPEND Drafts CATENATE (URL "/INBOX/;UID=${uid}/;SECTION=HEADER" TEXT ${literal('new body\r\n')})`,
  `APPEND Drafts CATENATE (TEXT ${literal(header)} URL "/INBOX/;UID=${uid}/;SECTION=TEXT")`,
  `APPEND Drafts CATENATE (URL "/inbox/;uid=${uid}/;section=1" URL "/INBOX/;UID=${uid}/;SECTION=1.MIME" URL "/INBOX/;UID=${uid}/;SECTION=2" URL "/INBOX/;UID=${uid}/;SECTION=2.MIME" URL "/INBOX/;UID=${uid}/;SECTION=3")`,
  `APPEND Drafts CATENATE (URL "/INBOX/;UID=${uid}/;SECTION=HEADER.FIELDS%20(FROM%20SUBJECT)" URL "/INBOX/;UID=${uid}/;SECTION=HEADER.FIELDS.NOT%20(FROM%20SUBJECT%20RECEIVED)" TEXT ${literal('body\r\n')})`,
  `APPEND Drafts CATENATE (URL "/INBOX/;UID=${uid}/;PARTIAL=10.40" URL "/INBOX/;UID=${uid}/;SECTION=TEXT/;PARTIAL=5" URL "/INBOX/;UID=${uid}/;SECTION=2/;PARTIAL=3.100" URL "/INBOX/;UID=${uid}/;PARTIAL=100000000.1")`,
  `APPEND Drafts CATENATE (URL "/INBOX/;UID=${uid}")`,
];

section('RFC 4469 CATENATE', servers, [
  {
    name: 'the sections of the first INBOX messages, as TEXT and URL parts',
    commands: [1, 2, 3, 4, 5, 6].flatMap(sectionsOf),
  },
  {
    name: 'a URL relative to the selected mailbox; MULTIAPPEND of built and whole messages with flags and dates',
    setup: ['EXAMINE INBOX'],
    commands: [
      'APPEND Drafts CATENATE (URL ";UID=1/;SECTION=TEXT")',
      `APPEND Drafts (\\Seen) "05-Jan-2023 10:00:00 +0100" CATENATE (URL "/INB%4FX/;UID=2/;SECTION=HEADER" TEXT ${literal('one\r\n')}) (\\Flagged) ${literal(`${header}two\r\n`)} CATENATE (TEXT ${literal(header)} URL "/INBOX/;UID=3/;SECTION=1")`,
    ],
  },
  {
    name: 'binary input: a literal8 first part makes binary parts base64; a literal8 after a URL is NO [UNKNOWN-CTE]',
    commands: [
      Buffer.from(`APPEND Drafts CATENATE (TEXT ${literal8(binary)})`, 'latin1'),
      Buffer.from(`APPEND Drafts CATENATE (TEXT ${literal8(header)} TEXT ${literal('plain\r\n')})`, 'latin1'),
      Buffer.from(`APPEND Drafts CATENATE (URL "/INBOX/;UID=1/;SECTION=HEADER" TEXT ${literal8('a\x00b')})`, 'latin1'),
      // the first part that fails decides: a URL naming nothing before the literal8, then after it
      Buffer.from(`APPEND Drafts CATENATE (URL "/INBOX/;UID=999" TEXT ${literal8('a\x00b')})`, 'latin1'),
      Buffer.from(
        `APPEND Drafts CATENATE (TEXT ${literal(header)} TEXT ${literal8('a\x00b')} URL "/INBOX/;UID=999")`,
        'latin1',
      ),
    ],
  },
  {
    name: 'the messages built',
    setup: ['EXAMINE Drafts'],
    // (INTERNALDATE is the time of the APPEND where none was given)
    commands: ['FETCH 1:* (FLAGS BODY.PEEK[])', 'SEARCH SINCE 05-Jan-2023 BEFORE 06-Jan-2023'],
  },
  {
    name: 'URLs that name nothing, or are not relative IMAP URLs of a message: NO [BADURL url], nothing stored',
    commands: [
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=999")',
      'APPEND Drafts CATENATE (URL "/Nowhere/;UID=1")',
      `APPEND Drafts CATENATE (TEXT ${literal(header)} URL "/INBOX;UIDVALIDITY=12345/;UID=1/;SECTION=TEXT")`,
      'APPEND Drafts CATENATE (URL "imap://someone@example.test/INBOX/;UID=1")',
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=0")',
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=1/;PARTIAL=0.0")',
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=1?SUBJECT%20x")',
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=1/;URLAUTH=anonymous")',
      'APPEND Drafts CATENATE (URL ";UID=1")',
      'STATUS Drafts (MESSAGES UIDNEXT)',
    ],
  },
  {
    name: 'MULTIAPPEND with one bad URL: none stored; a missing mailbox is NO [TRYCREATE] before any URL',
    commands: [
      `APPEND Drafts CATENATE (URL "/INBOX/;UID=1") ${literal(`${header}x\r\n`)} CATENATE (URL "/INBOX/;UID=999")`,
      'APPEND Nowhere CATENATE (URL "/INBOX/;UID=999")',
      'STATUS Drafts (MESSAGES UIDNEXT)',
    ],
  },
  {
    name: 'a section that is no section spec',
    commands: [
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=1/;SECTION=FOO")',
      'APPEND Drafts CATENATE (URL "/INBOX/;UID=1/;SECTION=MIME")',
    ],
    differs: 'the bridge answers NO [BADURL url]; Dovecot 2.3 NO [SERVERBUG]',
  },
  {
    // (Dovecot answers a TEXT part that is not a literal with an untagged BAD and nothing else)
    name: 'no parts: BAD',
    commands: ['APPEND Drafts CATENATE ()', 'NOOP'],
  },
]);

test('CATENATE advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('CATENATE');
  }
});
