import { beforeAll, expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * BINARY (RFC 3516) against Dovecot holding the same messages: BINARY[part] is the part with
 * its transfer encoding undone, BINARY.SIZE its length, BINARY.PEEK leaves \Seen alone; a part
 * that is not 7-bit goes as a literal8 (~{n}); an encoding that cannot be undone is
 * NO [UNKNOWN-CTE]; APPEND takes a literal8, and stores a binary part in it as base64.
 */

const servers = useServers();

const lines = (...l: string[]) => l.join('\r\n');

/** Bytes 0..255 twice, base64 in lines of 76: NUL and every 8-bit byte after decoding. */
const allBytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.alloc(256, 0)]);

const attachment = lines(
  'From: Ann <ann@example.test>',
  'Subject: binary parts',
  'Message-ID: <binary-parts@example.test>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b"',
  '',
  '--b',
  'Content-Type: text/plain; charset=us-ascii',
  'Content-Transfer-Encoding: 7bit',
  '',
  'plain ascii',
  '--b',
  'Content-Type: application/octet-stream',
  'Content-Transfer-Encoding: base64',
  '',
  ...(allBytes.toString('base64').match(/.{1,76}/g) ?? []),
  '--b',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'caf=C3=A9 with a soft=',
  ' break',
  '--b--',
  '',
);

/** A part whose encoding cannot be undone (Dovecot then refuses BINARY.SIZE of any part). */
const unknownEncoding = lines(
  'From: Ann <ann@example.test>',
  'Subject: unknown encoding',
  'Message-ID: <binary-unknown@example.test>',
  'MIME-Version: 1.0',
  'Content-Type: application/octet-stream',
  'Content-Transfer-Encoding: x-unknown',
  '',
  'cannot be undone',
  '',
);

/** Sent as a literal8 (RFC 3516 4.4): 8-bit text in a binary part. */
const binaryAppend = lines(
  'From: Ann <ann@example.test>',
  'Subject: appended as binary',
  'Message-ID: <binary-append@example.test>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: binary',
  '',
  'Grüße aus Köln',
  '',
);

/** A binary part with a NUL, an 8-bit byte, bare LFs and a CRLF, as imaptest's append-binary gives it. */
const bareLfAppend = Buffer.concat([
  Buffer.from(
    lines(
      'From: user@domain.org',
      'Date: Sat, 24 Mar 2007 23:00:00 +0200',
      'Mime-Version: 1.0',
      'Content-Type: application/octet-stream',
      'Content-Transfer-Encoding: binary',
      '',
      '',
    ),
  ),
  Buffer.from([0x00, 0x2d, 0xe4, 0x0a, 0x0d, 0x0a, 0x0a]),
]);

/** A multipart with a binary attachment of every byte value, between a preamble and an epilogue. */
const multipartBinary = Buffer.concat([
  Buffer.from(
    lines(
      'From: user@domain.org',
      'Mime-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      'preamble',
      '--b',
      'Content-Type: text/plain',
      '',
      'hello',
      '--b',
      'Content-Type: application/octet-stream',
      'Content-Transfer-Encoding: BINARY',
      'Content-Disposition: attachment',
      '',
      '',
    ),
  ),
  Buffer.alloc(768, 0).map((_, i) => i % 256),
  Buffer.from(lines('', '--b--', 'epilogue', '')),
]);

/** The UID each message got in Drafts, the same on both servers. */
const uids: Record<string, number> = {};

beforeAll(async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const given = Number(/APPENDUID \d+ (\d+)/.exec(await s.append('Drafts', attachment, '()'))?.[1]);
    const unknown = Number(/APPENDUID \d+ (\d+)/.exec(await s.append('Drafts', unknownEncoding, '()'))?.[1]);
    const appendLiteral8 = async (tag: string, bytes: Buffer) => {
      await s.exchange(`${tag} APPEND Drafts () ~{${bytes.length}}\r\n`, /^\+ [^\r\n]*\r\n/m);
      const appended = await s.exchange(
        `${bytes.toString('latin1')}\r\n`,
        new RegExp(`^${tag} (OK|NO|BAD)[^\r\n]*\r\n`, 'm'),
      );
      expect(appended).toMatch(new RegExp(`^${tag} OK`, 'm'));
      return Number(/APPENDUID \d+ (\d+)/.exec(appended)?.[1]);
    };
    const binary = await appendLiteral8('t90', Buffer.from(binaryAppend, 'utf8'));
    const bareLf = await appendLiteral8('t91', bareLfAppend);
    const multipart = await appendLiteral8('t92', multipartBinary);
    s.close();
    expect(given).toBeGreaterThan(0);
    if (uids.attachment === undefined) Object.assign(uids, { attachment: given, unknown, binary, bareLf, multipart });
    else expect({ attachment: given, unknown, binary, bareLf, multipart }).toEqual(uids);
  }
});

/** A case whose commands are made when it runs, after the messages got their UIDs. */
const on = (
  name: string,
  message: 'attachment' | 'binary' | 'bareLf' | 'multipart',
  items: string[],
  differs?: string,
) => ({
  name,
  differs,
  get commands() {
    return items.map((i) => `UID FETCH ${uids[message]} (${i})`);
  },
});

section(
  'RFC 3516 FETCH BINARY',
  servers,
  [
    on('a 7bit part, a base64 part holding NULs, a quoted-printable part', 'attachment', [
      'BINARY.PEEK[1] BINARY.SIZE[1]',
      'BINARY.PEEK[2]',
      'BINARY.PEEK[3] BINARY.SIZE[3]',
    ]),
    on(
      'BINARY.SIZE of the base64 part',
      'attachment',
      ['BINARY.SIZE[2]'],
      "the bridge answers the decoded length, 512, which BINARY[2]'s literal has on both servers; Dovecot 2.3 answers 495",
    ),
    on('a window of a part; a part that does not exist', 'attachment', [
      'BINARY.PEEK[2]<250.20>',
      'BINARY.PEEK[3]<0.4>',
      'BINARY.PEEK[7]',
    ]),
    on('BINARY sets \\Seen, BINARY.PEEK does not', 'attachment', [
      'FLAGS',
      'BINARY.PEEK[1]',
      'FLAGS',
      'BINARY[1]',
      'FLAGS',
    ]),
    on('a message appended as a literal8: its decoded part', 'binary', ['BINARY.PEEK[1]', 'BINARY.SIZE[1]']),
    on('a binary part with bare LFs, appended as a literal8: its bytes unchanged', 'bareLf', [
      'BINARY.PEEK[1]',
      'BINARY.SIZE[1]',
    ]),
    // RFC 3516 4.4: a binary part appended as a literal8 is stored as base64, so BODY of it
    // can go to any client, as Dovecot does; BINARY still answers the part's own bytes
    on('a message appended as a literal8: its binary part stored as base64', 'binary', [
      'BODY.PEEK[] RFC822.SIZE',
      'BODY.PEEK[1] BODYSTRUCTURE',
    ]),
    on('a part with a NUL and bare LFs appended as a literal8: stored as base64', 'bareLf', [
      'BODY.PEEK[] RFC822.SIZE',
      'BODY.PEEK[1] BODYSTRUCTURE',
    ]),
    on('a binary attachment of a multipart appended as a literal8: stored as base64', 'multipart', [
      'BODY.PEEK[] RFC822.SIZE BODYSTRUCTURE',
      'BODY.PEEK[2.MIME] BINARY.PEEK[2] BINARY.SIZE[2] BINARY.PEEK[1]',
    ]),
    on(
      'BINARY[] of the whole message',
      'attachment',
      ['BINARY.PEEK[]'],
      'the bridge returns the message as stored, as BODY[] (a multipart has no transfer encoding of its own); Dovecot decodes every part and rewrites its Content-Transfer-Encoding',
    ),
    on(
      'BINARY[n.MIME] and a partial BINARY.SIZE',
      'attachment',
      ['BINARY.PEEK[1.MIME]', 'BINARY.SIZE[1]<0.2>'],
      'RFC 3516 section-binary is part numbers only and BINARY.SIZE has no partial: the bridge answers BAD; Dovecot accepts both',
    ),
  ],
  ['SELECT Drafts'],
);

test('an encoding that cannot be undone is NO [UNKNOWN-CTE], as in Dovecot (which first sends the UID)', async () => {
  const answers = [];
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    await s.run('SELECT Drafts');
    for (const item of ['BINARY.PEEK[1]', 'BINARY.SIZE[1]'])
      answers.push(/^t\d+ (\S+ \[[^\]]+\])/m.exec(await s.run(`UID FETCH ${uids.unknown} (${item})`))?.[1]);
    s.close();
  }
  expect(answers).toEqual(Array(4).fill('NO [UNKNOWN-CTE]'));
});

test('both advertise BINARY', async () => {
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bBINARY\b/m);
    s.close();
  }
});
