import { beforeAll } from 'vitest';
import { appendToBoth, section, useServers } from './harness';

/**
 * RFC 3501 6.4.5 part numbers inside a message whose top level is message/rfc822: part 1 is
 * the encapsulated message, and a non-multipart message (the encapsulated one included) has
 * only a part 1, its body, so 1.1 is the inner message's body and 1.1.1 the body of a
 * message encapsulated twice; in a multipart/digest a part without Content-Type is a
 * message/rfc822 (RFC 2046 5.1.5) (imaptest's fetch-body-message-rfc822* groups).
 */

const servers = useServers();

const lines = (...l: string[]) => l.join('\r\n');

const once = lines(
  'From: user@domain.org',
  'Date: Sat, 24 Mar 2007 23:00:00 +0200',
  'Mime-Version: 1.0',
  'Content-Type: message/rfc822',
  '',
  'From: sub@domain.org',
  'Date: Sun, 12 Aug 2012 12:34:56 +0300',
  'Subject: submsg',
  '',
  'Hello world',
  '',
);

const twice = lines(
  'From: user@domain.org',
  'Date: Sat, 24 Mar 2007 23:00:00 +0200',
  'Mime-Version: 1.0',
  'Content-Type: message/rfc822',
  '',
  'From: user2@domain.org',
  'Date: Fri, 23 Mar 2007 11:22:33 +0200',
  'Mime-Version: 1.0',
  'Content-Type: message/rfc822',
  '',
  'From: sub@domain.org',
  'Date: Sun, 12 Aug 2012 12:34:56 +0300',
  'Subject: submsg',
  '',
  'Hello world',
  '',
);

const digest = lines(
  'From: user@domain.org',
  'Date: Sat, 24 Mar 2007 23:00:00 +0200',
  'Mime-Version: 1.0',
  'Content-Type: message/rfc822',
  '',
  'From: sub@domain.org',
  'Date: Sun, 12 Aug 2012 12:34:56 +0300',
  'Subject: submsg',
  'Content-Type: multipart/digest; boundary="foo"',
  '',
  'prologue',
  '',
  '--foo',
  '',
  'From: m1@example.com',
  'Subject: m1',
  '',
  'm1 body',
  '',
  '--foo',
  'X-Mime: m2 header',
  '',
  'From: m2@example.com',
  'Subject: m2',
  '',
  'm2 body',
  '',
  '--foo--',
  '',
  'epilogue',
  '',
);

/** The digest with transport padding after its delimiters (RFC 2046 5.1.1), as imaptest's fetch-body-message-rfc822-mime has it. */
const padded = digest.replaceAll('\r\n--foo\r\n', '\r\n--foo \r\n').replace('\r\n--foo--\r\n', '\r\n--foo--\t\r\n');

/** The UID each message got in Drafts, the same on both servers (checked when appended). */
const uids: Record<string, number> = {};

beforeAll(async () => {
  for (const [name, message] of Object.entries({ once, twice, digest, padded })) {
    uids[name] = await appendToBoth(servers.current, message);
  }
});

/** A case whose command is made when it runs, after the messages got their UIDs. */
const fetchCase = (name: string, message: string, sections: string[]) => ({
  name,
  get commands() {
    const uid = uids[message];
    if (!uid) throw new Error(`${message} was not appended`);
    return [`UID FETCH ${uid} (${sections.map((s) => `BODY.PEEK[${s}]`).join(' ')})`];
  },
});

section(
  'RFC 3501 6.4.5 sections of a top-level message/rfc822',
  servers,
  [
    fetchCase('encapsulated once: 1, 1.1, 1.HEADER, 1.TEXT, 1.2', 'once', ['1', '1.1', '1.HEADER', '1.TEXT', '1.2']),
    fetchCase('encapsulated twice: 1.1, 1.1.1, 1.1.HEADER, 1.1.TEXT', 'twice', [
      '1',
      '1.1',
      '1.1.1',
      '1.HEADER',
      '1.TEXT',
      '1.1.HEADER',
      '1.1.TEXT',
    ]),
    fetchCase('a digest inside: 1.1, 1.2, 1.2.MIME, 1.2.HEADER, 1.2.TEXT', 'digest', [
      '1.1',
      '1.2',
      '1.2.MIME',
      '1.2.HEADER',
      '1.2.TEXT',
      '1.1.TEXT',
    ]),
    fetchCase(
      'a digest part without a header of its own (a blank line after the delimiter): 1.1.MIME, 1.TEXT',
      'digest',
      ['1.1.MIME', '1.TEXT'],
    ),
    fetchCase('a digest whose delimiters carry transport padding: its parts, byte for byte', 'padded', [
      '',
      '1.1',
      '1.2',
      '1.2.MIME',
      '1.2.TEXT',
    ]),
    {
      name: 'a digest whose delimiters carry transport padding: BODYSTRUCTURE',
      get commands() {
        return [`UID FETCH ${uids.padded} (BODYSTRUCTURE)`];
      },
    },
    {
      name: 'a digest inside: BODYSTRUCTURE',
      get commands() {
        return [`UID FETCH ${uids.digest} (BODYSTRUCTURE)`];
      },
    },
  ],
  ['EXAMINE Drafts'],
);
