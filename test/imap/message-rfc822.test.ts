import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * A forwarded message (message/rfc822 attachment) as strict clients read it: a BODYSTRUCTURE
 * with the inner envelope, body structure and line count (RFC 3501 body-type-msg), and
 * sections inside the part that address the inner message (RFC 3501 6.4.5).
 */

const inner = [
  'From: Carol <carol@example.org>',
  'To: bob@example.com',
  'Subject: Quarterly numbers',
  'Date: Tue, 3 Mar 2026 09:15:00 +0100',
  'Message-ID: <inner.2@example.org>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/alternative; boundary="inner-b"',
  '',
  '--inner-b',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Numbers attached.',
  '--inner-b',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Numbers attached.</p>',
  '--inner-b--',
  '',
].join('\r\n');

let h: Harness;
let imap: RawSession;
let uid: string;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 5 } });
  const { message_id } = await control<{ message_id: string }>(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: {
      from: 'Bob <bob@example.com>',
      subject: 'Fwd: Quarterly numbers',
      text: 'Forwarding this.',
      attachments: [
        { filename: 'forward.eml', contentType: 'message/rfc822', content: Buffer.from(inner).toString('base64') },
      ],
    },
  });
  imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  await imap.run('EXAMINE INBOX');
  const found = await imap.run(`UID SEARCH HEADER Message-ID "${message_id}"`);
  uid = /SEARCH (\d+)/.exec(found)?.[1] ?? '';
  expect(uid).not.toBe('');
});

afterAll(async () => {
  imap?.close();
  await h?.close();
});

/** The literal of the one section a FETCH asked for. */
async function section(name: string): Promise<string> {
  const answer = await imap.run(`UID FETCH ${uid} (BODY.PEEK[${name}])`);
  const m = /\{(\d+)\}\r\n/.exec(answer);
  if (!m) return answer.match(/BODY\[[^\]]*\] (NIL|"[^"]*")/)?.[1] ?? answer;
  return answer.slice(m.index + m[0].length, m.index + m[0].length + Number(m[1]));
}

describe('message/rfc822 part', () => {
  test('BODYSTRUCTURE carries the inner envelope, body structure and line count', async () => {
    const answer = await imap.run(`UID FETCH ${uid} (BODYSTRUCTURE)`);
    expect(answer).toMatch(
      /\("MESSAGE" "RFC822" \([^)]*\) NIL NIL "7BIT" \d+ \("Tue, 3 Mar 2026 09:15:00 \+0100" "Quarterly numbers" .*\(\("TEXT" "PLAIN" .*"ALTERNATIVE" .*\) \d+ /,
    );
  });

  test('BODY[2.HEADER.FIELDS (From Subject)] is the inner header', async () => {
    expect(await section('2.HEADER.FIELDS (From Subject)')).toBe(
      'From: Carol <carol@example.org>\r\nSubject: Quarterly numbers\r\n\r\n',
    );
  });

  test('BODY[2.1] and BODY[2.2] are the inner parts', async () => {
    expect(await section('2.1')).toBe('Numbers attached.');
    expect(await section('2.2')).toBe('<p>Numbers attached.</p>');
  });

  test('BODY[2.1.MIME] is the inner part header', async () => {
    expect(await section('2.1.MIME')).toBe('Content-Type: text/plain; charset=utf-8\r\n\r\n');
  });

  test('BODY[2.TEXT] is the inner body', async () => {
    expect(await section('2.TEXT')).toMatch(/^--inner-b\r\n.*--inner-b--\r\n$/s);
  });
});
