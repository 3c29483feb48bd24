import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * FETCH answers RFC 3501 fixes byte for byte (6.4.5, 7.4.2), as raw exchanges: which items
 * set \Seen, what BODY leaves out, NIL in ENVELOPE, empty header sections, and a draft that
 * comes back exactly as it was appended.
 */

let h: Harness;
let s: RawSession;

/** A multipart draft with a preamble and an epilogue, no Subject header. */
const draft = [
  'From: Ann <ann@example.test>',
  'Date: Mon, 02 Jan 2023 23:30:00 -0500',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="XX"',
  '',
  'This is the preamble.',
  '--XX',
  'Content-Type: text/plain; charset=us-ascii',
  '',
  'zebra body',
  '--XX--',
  'This is the epilogue.',
  '',
].join('\r\n');

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 5 } });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await s.append('Drafts', draft, '()')).toMatch(/OK \[APPENDUID \d+ 1\]/);
});

afterAll(async () => {
  s?.close();
  await h?.close();
});

/** A new unread INBOX message; its sequence number in a fresh SELECT. */
async function unreadInInbox(subject: string): Promise<number> {
  await control(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'bob@example.test', subject, text: 'hello there', is_read: false },
  });
  await h.bridge.pollers[0].tick(); // SELECT answers from local state: the poll brings the new mail in
  const selected = await s.run('SELECT INBOX');
  return Number(/\* (\d+) EXISTS/.exec(selected)?.[1]);
}

describe('RFC 3501 6.4.5: items that set \\Seen', () => {
  test.each(['RFC822.TEXT', 'BODY[TEXT]'])('FETCH n %s sets \\Seen on a writable selection', async (item) => {
    const n = await unreadInInbox(`unread for ${item}`);
    // the new message is \Recent in this session (RFC 3501 2.3.2), and not \Seen
    expect(await s.run(`FETCH ${n} FLAGS`)).toContain(`* ${n} FETCH (FLAGS (\\Recent))`);
    const answer = await s.run(`FETCH ${n} ${item}`);
    expect(answer).toMatch(new RegExp(`^\\* ${n} FETCH \\(.*FLAGS \\(\\\\Seen( \\\\Recent)?\\)`, 'ms'));
    expect(await s.run(`FETCH ${n} FLAGS`)).toMatch(
      new RegExp(`^\\* ${n} FETCH \\(FLAGS \\(\\\\Seen \\\\Recent\\)\\)`, 'm'),
    );
  });

  test('BODY.PEEK[TEXT] and a read-only selection leave it unseen', async () => {
    const n = await unreadInInbox('unread for peek');
    await s.run(`FETCH ${n} BODY.PEEK[TEXT]`);
    await s.run('EXAMINE INBOX');
    await s.run(`FETCH ${n} RFC822.TEXT`);
    expect(await s.run(`FETCH ${n} FLAGS`)).toContain(`* ${n} FETCH (FLAGS ())`);
  });
});

describe('RFC 3501 7.4.2: FETCH answers', () => {
  test('BODY, the non-extensible form, carries no extension data', async () => {
    await s.run('EXAMINE Drafts');
    expect(await s.run('FETCH 1 BODY')).toContain(
      '* 1 FETCH (BODY (("TEXT" "PLAIN" ("CHARSET" "us-ascii") NIL NIL "7BIT" 10 0) "MIXED"))\r\n',
    );
    // BODYSTRUCTURE keeps them
    expect(await s.run('FETCH 1 BODYSTRUCTURE')).toContain('"MIXED" ("BOUNDARY" "XX")');
  });

  test('BODY strings are encoded words in a session without UTF8=ACCEPT, as in BODYSTRUCTURE', async () => {
    const named = [
      'From: ann@example.test',
      'Subject: a file',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8; name="=?UTF-8?Q?caf=C3=A9.txt?="',
      '',
      'text',
      '',
    ].join('\r\n');
    await s.append('Drafts', named, '()');
    await s.run('EXAMINE Drafts');
    const body = await s.run('FETCH 2 BODY');
    expect(body).toContain('"NAME" "=?UTF-8?Q?caf=C3=A9=2Etxt?="');
    expect(body).not.toMatch(/[^\x00-\x7f]/);
    expect(await s.run('FETCH 2 BODYSTRUCTURE')).toContain('"NAME" "=?UTF-8?Q?caf=C3=A9=2Etxt?="');
  });

  test('a text part without charset has the RFC 2045 default in BODY and BODYSTRUCTURE', async () => {
    await s.run('EXAMINE Drafts');
    // draft 2 (appended above) says charset=utf-8; this one says nothing
    await s.append('Drafts', 'From: ann@example.test\r\nContent-Type: text/plain; format=flowed\r\n\r\nhi\r\n', '()');
    await s.run('EXAMINE Drafts');
    expect(await s.run('FETCH 3 BODY')).toContain(
      '("TEXT" "PLAIN" ("FORMAT" "flowed" "CHARSET" "us-ascii") NIL NIL "7BIT" 4 1)',
    );
    expect(await s.run('FETCH 3 BODYSTRUCTURE')).toContain('("FORMAT" "flowed" "CHARSET" "us-ascii")');
    expect(await s.run('FETCH 2 BODY')).not.toContain('us-ascii');
  });

  test('an ENVELOPE field whose header is missing is NIL', async () => {
    await s.run('EXAMINE Drafts');
    expect(await s.run('FETCH 1 ENVELOPE')).toContain(
      '* 1 FETCH (ENVELOPE ("Mon, 02 Jan 2023 23:30:00 -0500" NIL (("Ann" NIL "ann" "example.test")) ' +
        '(("Ann" NIL "ann" "example.test")) (("Ann" NIL "ann" "example.test")) NIL NIL NIL NIL NIL))\r\n',
    );
  });

  test('BODY[HEADER.FIELDS (x)] without a matching header is exactly CRLF', async () => {
    await s.run('EXAMINE Drafts');
    expect(await s.run('FETCH 1 BODY.PEEK[HEADER.FIELDS (X-Missing)]')).toContain(
      '* 1 FETCH (BODY[HEADER.FIELDS (X-Missing)] {2}\r\n\r\n)\r\n',
    );
    expect(await s.run('FETCH 1 BODY.PEEK[HEADER.FIELDS.NOT (From Date MIME-Version Content-Type)]')).toContain(
      '{2}\r\n\r\n)\r\n',
    );
  });
});

describe('APPEND', () => {
  test('a draft comes back byte-identical, preamble and epilogue in place', async () => {
    await s.run('EXAMINE Drafts');
    const size = Buffer.byteLength(draft);
    expect(await s.run('FETCH 1 RFC822.SIZE')).toContain(`* 1 FETCH (RFC822.SIZE ${size})`);
    expect(await s.run('FETCH 1 BODY.PEEK[]')).toContain(`* 1 FETCH (BODY[] {${size}}\r\n${draft})\r\n`);
    const text = draft.slice(draft.indexOf('\r\n\r\n') + 4);
    expect(await s.run('FETCH 1 BODY.PEEK[TEXT]')).toContain(
      `* 1 FETCH (BODY[TEXT] {${Buffer.byteLength(text)}}\r\n${text})\r\n`,
    );
  });

  test('a preamble that ends with a blank line keeps it (imaptest append: 4 bytes short before)', async () => {
    const message =
      'From: ann@example.test\r\nSubject: prologue\r\nMIME-Version: 1.0\r\n' +
      'Content-Type: multipart/mixed; boundary="foo bar"\r\n\r\nRoot MIME prologue\r\n\r\n' +
      '--foo bar\r\nContent-Type: text/plain\r\n\r\nhello\r\n\r\n--foo bar--\r\n';
    await s.append('Drafts', message, '()');
    const exists = /\* (\d+) EXISTS/.exec(await s.run('EXAMINE Drafts'))![1];
    const size = Buffer.byteLength(message);
    expect(await s.run(`FETCH ${exists} (RFC822.SIZE BODY.PEEK[])`)).toContain(
      `* ${exists} FETCH (RFC822.SIZE ${size} BODY[] {${size}}\r\n${message})\r\n`,
    );
  });
});
