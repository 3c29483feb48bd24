import { section, useServers } from './harness';

/**
 * RFC 3501 6.4.4 SEARCH in any language: header fields on their RFC 2047-decoded text,
 * bodies on their text decoded from the declared charset, address fields on their parsed
 * addresses, all under i;unicode-casemap (RFC 5051, src/mime/casemap.ts). The messages are
 * drafts appended to both servers, so the bridge answers from its own copy.
 */

const servers = useServers();

const messages = [
  [
    'From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.test>',
    'To: Ann <ann@example.test>',
    'Subject: =?UTF-8?Q?=C3=9Cbergabe?= des Projekts',
    'Message-ID: <i18n-1@example.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Gr=C3=BC=C3=9Fe aus M=C3=BCnchen, Stra=C3=9Fe 5.',
  ],
  [
    'From: claire@example.test',
    'Subject: =?ISO-8859-1?Q?R=E9union?= demain',
    'Message-ID: <i18n-2@example.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=iso-8859-1',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    '=C9t=E9 au caf=E9, SISYPHE.',
  ],
  [
    'From: <user-from (comment)@ (comment) domain.org>',
    'To: groupname: groupuser1@domain.org, groupuser2@domain.org;',
    'Cc: user-cc@domain.org (RealCc)',
    'Subject: =?UTF-8?B?5Lya6K2w?=',
    'Message-ID: <i18n-3@example.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('会議の議事録: ΣΊΣΥΦΟΣ, STRASSE, ǅ.').toString('base64'),
  ],
].map((lines) => `${lines.join('\r\n')}\r\n`);

/** A search string as a non-synchronizing literal of its UTF-8 bytes. */
const literal = (text: string) => `{${Buffer.byteLength(text)}+}\r\n${text}`;

/** A command whose search string is written in ISO-8859-1 (one byte a letter). */
const latin1 = (before: string, text: string) =>
  Buffer.concat([Buffer.from(`${before} {${text.length}+}\r\n`), Buffer.from(text, 'latin1')]);

section(
  'RFC 3501 6.4.4 SEARCH: text in any language',
  servers,
  [
    { name: 'the messages', setup: [], commands: messages.map((message) => ({ append: 'Drafts', message })) },
    {
      name: 'SUBJECT on decoded words, letter case aside',
      commands: [
        `UID SEARCH CHARSET UTF-8 SUBJECT ${literal('Übergabe')}`,
        `UID SEARCH SUBJECT ${literal('übergabe')}`,
        `SEARCH SUBJECT ${literal('会議')}`,
        `SEARCH SUBJECT ${literal('RÉUNION')}`,
        'SEARCH SUBJECT reunion',
        `SEARCH SUBJECT ${literal('re\u0301union')}`,
      ],
    },
    {
      name: 'BODY and TEXT on the text decoded from its charset',
      commands: [
        `SEARCH BODY ${literal('münchen')}`,
        `SEARCH BODY ${literal('ÉTÉ')}`,
        `SEARCH TEXT ${literal('σίσυφος')}`,
        `SEARCH TEXT ${literal('ςίσυφος')}`,
        `SEARCH BODY ${literal('ǆ')}`,
        `SEARCH BODY ${literal('straße')}`,
        'SEARCH BODY strasse',
        `SEARCH TEXT ${literal('jürgen')}`,
        `SEARCH BODY ${literal('会議の議事録')}`,
        `SEARCH BODY ${literal('übergabe')}`,
      ],
    },
    {
      name: 'CHARSET ISO-8859-1 and WINDOWS-1252',
      commands: [
        latin1('SEARCH CHARSET ISO-8859-1 SUBJECT', 'réunion'),
        latin1('SEARCH CHARSET WINDOWS-1252 BODY', 'café'),
        latin1('SEARCH CHARSET iso-8859-1 FROM', 'Müller'),
      ],
    },
    {
      name: 'quoted strings after ENABLE UTF8=ACCEPT',
      setup: ['ENABLE UTF8=ACCEPT', 'EXAMINE Drafts'],
      commands: ['SEARCH SUBJECT "Übergabe"', 'SEARCH BODY "été"', 'SEARCH TEXT "会議"'],
    },
    {
      name: 'address fields on their parsed addresses',
      commands: [
        'SEARCH FROM user-from@domain.org',
        'SEARCH FROM ser-fro',
        'SEARCH TO groupname',
        'SEARCH TO groupuser2',
        'SEARCH CC realcc',
        'SEARCH CC "RealCc <user-cc@domain.org>"',
        `SEARCH FROM ${literal('Jürgen Müller <juergen@')}`,
      ],
    },
  ],
  ['EXAMINE Drafts'],
);
