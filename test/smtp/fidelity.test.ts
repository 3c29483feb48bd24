import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { VendorMessage } from '../../src/upstream/types';
import { alice, bob, startSmtpHarness, type SmtpHarness } from './harness';

/**
 * Submission fidelity: what every recipient's copy shows (To and Cc for all, Bcc for none), in
 * both ways of sending (submission.recipients), a round trip of subject, addresses, text, html
 * and attachment bytes, legacy 8-bit headers, and SMTPUTF8.
 */

const carol = 'carol@sandbox.test';
const dave = 'dave@sandbox.test';
const mailboxes = [alice, bob, carol, dave];

async function harness(recipients: 'headers' | 'command'): Promise<SmtpHarness> {
  return startSmtpHarness({ sandbox: { mailboxes }, config: { submission: { recipients } } });
}

async function received(h: SmtpHarness, mailbox: string, messageId: string): Promise<VendorMessage | undefined> {
  return (await h.messages(mailbox)).find((m) => m.message_id === messageId);
}

const emails = (list: Array<{ email: string }> | undefined) => (list ?? []).map((r) => r.email);

describe.each(['headers', 'command'] as const)('submission.recipients = %s', (mode) => {
  let h: SmtpHarness;
  beforeAll(async () => {
    h = await harness(mode);
  });
  afterAll(async () => {
    await h?.close();
  });

  test('every recipient sees To and Cc, nobody sees Bcc', async () => {
    const messageId = `<everyone-${mode}@client.test>`;
    await h.transport().sendMail({
      from: alice,
      to: [{ name: 'Bob', address: bob }],
      cc: carol,
      bcc: dave,
      subject: 'For all of you',
      text: 'Hello everyone',
      messageId,
    });
    for (const mailbox of [bob, carol, dave]) {
      const copy = await received(h, mailbox, messageId);
      expect(copy, mailbox).toBeDefined();
      expect(emails(copy?.to), mailbox).toEqual([bob]);
      expect(emails(copy?.cc), mailbox).toEqual([carol]);
      expect(emails(copy?.bcc), mailbox).toEqual([]);
    }
  });

  test('subject, addresses, text, html and attachment bytes arrive as submitted', async () => {
    const messageId = `<roundtrip-${mode}@client.test>`;
    const bytes = crypto.randomBytes(30_000);
    await h.transport().sendMail({
      from: { name: 'Alice Ärger', address: alice },
      to: { name: 'Bob Brown', address: bob },
      replyTo: 'replies@sandbox.test',
      subject: 'Quartalszahlen 📈 — ein sehr langer Betreff, der über mehrere Zeilen gefaltet werden muss',
      text: 'Zahlen: siehe Anhang\nZeile zwei',
      html: '<p>Zahlen: <b>siehe Anhang</b></p>',
      messageId,
      attachments: [{ filename: 'Übersicht Q3 (final).bin', content: bytes, contentType: 'application/octet-stream' }],
    });
    const got = await received(h, bob, messageId);
    expect(got).toMatchObject({
      subject: 'Quartalszahlen 📈 — ein sehr langer Betreff, der über mehrere Zeilen gefaltet werden muss',
      from_email: alice,
      body: { text: 'Zahlen: siehe Anhang\nZeile zwei', html: '<p>Zahlen: <b>siehe Anhang</b></p>' },
    });
    expect(got?.to).toEqual([{ email: bob, name: 'Bob Brown' }]);
    expect(got?.full_headers?.headers_json).toMatchObject({ 'Reply-To': 'replies@sandbox.test' });
    const [file] = got?.attachments ?? [];
    expect(file?.file_name).toBe('Übersicht Q3 (final).bin');
    expect(await h.attachment(bob, got!.message_uid, file!.attachment_id)).toEqual(bytes);
  });
});

describe('submission.recipients = command, a header naming someone outside the envelope', () => {
  let h: SmtpHarness;
  beforeAll(async () => {
    h = await harness('command');
  });
  afterAll(async () => {
    await h?.close();
  });

  test('goes the per-recipient way: only the envelope recipient gets it, showing both', async () => {
    const messageId = '<outside@client.test>';
    const raw = `From: ${alice}\r\nTo: ${bob}, ${carol}\r\nSubject: Only for Bob\r\nMessage-ID: ${messageId}\r\n\r\nHi\r\n`;
    await h.transport().sendMail({ envelope: { from: alice, to: [bob] }, raw });
    expect(emails((await received(h, bob, messageId))?.to)).toEqual([bob, carol]);
    expect(await received(h, carol, messageId)).toBeUndefined();
  });
});

describe('8-bit headers and SMTPUTF8', () => {
  let h: SmtpHarness;
  beforeAll(async () => {
    h = await harness('headers');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A message written by a client that puts Latin-1 bytes into the Subject unencoded. */
  const latin1 = (contentType: string, messageId: string) =>
    Buffer.concat([
      Buffer.from(`From: ${alice}\r\nTo: ${bob}\r\nMessage-ID: ${messageId}\r\n`),
      Buffer.from('Subject: Gr\xfc\xdfe aus K\xf6ln\r\n', 'latin1'),
      Buffer.from(`MIME-Version: 1.0\r\nContent-Type: ${contentType}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`),
      Buffer.from('Viele Gr\xfc\xdfe\r\n', 'latin1'),
    ]);

  test('a Latin-1 subject is read with the charset the text declares', async () => {
    await h.transport().sendMail({
      envelope: { from: alice, to: [bob] },
      raw: latin1('text/plain; charset=iso-8859-1', '<latin1@client.test>'),
    });
    const got = await received(h, bob, '<latin1@client.test>');
    expect(got?.subject).toBe('Grüße aus Köln');
    expect(got?.body?.text).toBe('Viele Grüße\n');
  });

  test('8-bit header bytes that no charset names are refused with a 554', async () => {
    await expect(
      h
        .transport()
        .sendMail({ envelope: { from: alice, to: [bob] }, raw: latin1('text/plain', '<unknown@client.test>') }),
    ).rejects.toMatchObject({
      responseCode: 554,
      response: expect.stringMatching(/5\.6\.0 Header Subject .*RFC 2047/),
    });
  });

  test('a non-ASCII address needs SMTPUTF8, and with it goes to the vendor as written', async () => {
    const smtp = await dialog(h.port);
    await smtp.say('EHLO client.test');
    expect(await smtp.say(`AUTH PLAIN ${Buffer.from(`\0${alice}\0${h.password}`).toString('base64')}`)).toMatch(/^235/);
    await smtp.say(`MAIL FROM:<${alice}>`);
    expect(await smtp.say('RCPT TO:<ü@exämple.com>')).toMatch(/^553 5\.6\.7 .*SMTPUTF8/);
    await smtp.say('RSET');
    expect(await smtp.say(`MAIL FROM:<${alice}> SMTPUTF8`)).toMatch(/^250/);
    expect(await smtp.say('RCPT TO:<ü@exämple.com>')).toMatch(/^250/);
    expect(await smtp.say('DATA')).toMatch(/^354/);
    const body = `From: ${alice}\r\nTo: ü@exämple.com\r\nSubject: UTF-8\r\nMessage-ID: <utf8@client.test>\r\n\r\nHallo\r\n.`;
    expect(await smtp.say(body)).toMatch(/^250/);
    smtp.close();
    const res = await fetch(`${h.sandbox.urls.control}/outbox`);
    const { outbox } = (await res.json()) as {
      outbox: Array<{ message_id: string; delivered_to: string[]; to: string[] }>;
    };
    expect(outbox.find((o) => o.message_id === '<utf8@client.test>')?.to).toEqual(['ü@exämple.com']);
  });
});

/** A plain SMTP dialog on loopback: each line sent, the server's complete answer back. */
async function dialog(port: number): Promise<{ say(line: string): Promise<string>; close(): void }> {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let wake: (() => void) | null = null;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    wake?.();
  });
  const answer = async () => {
    // a complete answer ends with a line "ddd text" (no dash after the code)
    while (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buffer)) await new Promise<void>((r) => (wake = r));
    const out = buffer;
    buffer = '';
    return out;
  };
  await answer();
  return {
    say: (line) => {
      socket.write(`${line}\r\n`);
      return answer();
    },
    close: () => socket.destroy(),
  };
}
