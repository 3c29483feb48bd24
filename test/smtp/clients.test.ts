import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { alice, bob, run, startSmtpHarness, type SmtpHarness } from './harness';
import { requireTools } from '../support/tools';

/** Real clients (nodemailer, swaks, curl) submit through the bridge; the sandbox shows what arrived. */

let h: SmtpHarness;
let tmp: string;

beforeAll(async () => {
  requireTools('swaks', 'swaks-tls', 'curl');
  h = await startSmtpHarness();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-smtp-clients-'));
});

afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const byMessageId = async (mailbox: string, messageId: string) =>
  (await h.messages(mailbox)).find((m) => m.message_id === messageId);

describe('nodemailer', () => {
  test('STARTTLS submission with html and a binary attachment arrives intact, with Message-ID, Reply-To', async () => {
    const bytes = crypto.randomBytes(70_000);
    const info = await h.transport().sendMail({
      from: { name: 'Alice Ärger', address: alice },
      to: bob,
      replyTo: 'replies@sandbox.test',
      subject: 'Quartalszahlen 📈 Q3',
      html: '<h1>Zahlen</h1><p>siehe Anhang</p>',
      text: 'Zahlen: siehe Anhang',
      messageId: '<q3-nodemailer@client.test>',
      attachments: [{ filename: 'zahlen.bin', content: bytes, contentType: 'application/octet-stream' }],
    });
    expect(info.response).toMatch(/^250 Sent to 1 recipient\(s\), vendor email id\(s\) em_/);

    const got = await byMessageId(bob, '<q3-nodemailer@client.test>');
    expect(got).toMatchObject({ subject: 'Quartalszahlen 📈 Q3', from_email: alice, from_name: 'Alice Ärger' });
    expect(got?.body?.html).toBe('<h1>Zahlen</h1><p>siehe Anhang</p>');
    expect(got?.body?.text).toBe('Zahlen: siehe Anhang');
    expect((got?.full_headers?.headers_json as Record<string, string> | undefined)?.['Reply-To']).toBe(
      'replies@sandbox.test',
    );
    const file = got?.attachments?.[0];
    expect(file).toMatchObject({ file_name: 'zahlen.bin', size_bytes: bytes.length });
    expect((await h.attachment(bob, got!.message_uid, file!.attachment_id)).equals(bytes)).toBe(true);
    expect(h.submitted.at(-1)).toMatchObject({ mailbox: alice, messageId: '<q3-nodemailer@client.test>' });
    expect(h.submitted.at(-1)?.vendorIds).toHaveLength(1);
  });

  test('to, cc and bcc recipients each get the message through their own vendor call', async () => {
    const outboxBefore = await outbox();
    await h.transport().sendMail({
      from: alice,
      to: bob,
      cc: 'carol@elsewhere.test',
      bcc: 'dave@elsewhere.test',
      subject: 'three recipients',
      text: 'hello all',
      messageId: '<three@client.test>',
    });
    const calls = (await outbox()).slice(outboxBefore.length);
    expect(calls.map((c) => c.to[0]).sort()).toEqual([bob, 'carol@elsewhere.test', 'dave@elsewhere.test']);
    // nobody's copy names the Bcc recipient
    expect(calls.every((c) => c.cc.length === 0 && c.bcc.length === 0)).toBe(true);
    expect(h.submitted.at(-1)?.vendorIds.sort()).toEqual(calls.map((c) => c.id).sort());
    expect(await byMessageId(bob, '<three@client.test>')).toBeDefined();
  });
});

async function outbox(): Promise<
  Array<{ id: string; to: string[]; cc: string[]; bcc: string[]; subject: string; message_id: string }>
> {
  const res = await fetch(`${h.sandbox.urls.control}/outbox`);
  return (
    (await res.json()) as {
      outbox: Array<{ id: string; to: string[]; cc: string[]; bcc: string[]; subject: string; message_id: string }>;
    }
  ).outbox;
}

describe('swaks', () => {
  test('text-only mail over STARTTLS with AUTH LOGIN becomes escaped HTML', async () => {
    const body = 'if a < b && c > d then "quote" \'it\'\nline two';
    const r = await run('swaks', [
      '--server',
      `127.0.0.1:${h.port}`,
      '--tls',
      '--auth',
      'LOGIN',
      '--auth-user',
      alice,
      '--auth-password',
      h.password,
      '--from',
      alice,
      '--to',
      bob,
      '--header',
      'Subject: swaks text only',
      '--header',
      'Message-Id: <swaks-text@client.test>',
      '--body',
      body,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/<~ {1,2}250 Sent to 1 recipient/);
    const got = await byMessageId(bob, '<swaks-text@client.test>');
    expect(got?.subject).toBe('swaks text only');
    expect(got?.body?.html).toContain('if a &lt; b &amp;&amp; c &gt; d then &quot;quote&quot; &#39;it&#39;\nline two');
    expect(got?.body?.html).not.toContain('<b');
  });

  test('AUTH PLAIN in plaintext is allowed on loopback', async () => {
    const r = await run('swaks', [
      '--server',
      `127.0.0.1:${h.port}`,
      '--auth',
      'PLAIN',
      '--auth-user',
      alice,
      '--auth-password',
      h.password,
      '--from',
      alice,
      '--to',
      bob,
      '--header',
      'Subject: swaks plain',
      '--header',
      'Message-Id: <swaks-plain@client.test>',
      '--body',
      'plain auth',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await byMessageId(bob, '<swaks-plain@client.test>')).toBeDefined();
  });

  test('a wrong password is refused with 535 and nothing is sent', async () => {
    const before = (await outbox()).length;
    const r = await run('swaks', [
      '--server',
      `127.0.0.1:${h.port}`,
      '--tls',
      '--auth',
      'PLAIN',
      '--auth-user',
      alice,
      '--auth-password',
      'wrong-password',
      '--from',
      alice,
      '--to',
      bob,
      '--body',
      'x',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/535 5\.7\.8 Authentication failed/);
    expect((await outbox()).length).toBe(before);
  });
});

describe('curl', () => {
  // curl sends the file as is: no Message-ID, so the bridge generates one and reports it
  const raw = (subject: string) =>
    [
      `From: Alice <${alice}>`,
      `To: ${bob}`,
      `Subject: ${subject}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'sent by curl <3',
      '',
    ].join('\r\n');

  test('STARTTLS (--ssl-reqd) upload gets a generated Message-ID that onSubmitted reports', async () => {
    const file = path.join(tmp, 'curl-starttls.eml');
    fs.writeFileSync(file, raw('curl starttls'));
    const r = await run('curl', [
      '-sS',
      '--ssl-reqd',
      '-k',
      `smtp://127.0.0.1:${h.port}`,
      '--mail-from',
      alice,
      '--mail-rcpt',
      bob,
      '--upload-file',
      file,
      '--user',
      `${alice}:${h.password}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const submitted = h.submitted.at(-1)!;
    expect(submitted.messageId).toMatch(/^<[0-9a-f-]{36}@mailbridge\.local>$/);
    const got = await byMessageId(bob, submitted.messageId);
    expect(got).toMatchObject({ subject: 'curl starttls', from_name: 'Alice' });
    expect(got?.body?.html).toContain('sent by curl &lt;3');
  });

  test('implicit TLS port (smtps://)', async () => {
    const file = path.join(tmp, 'curl-smtps.eml');
    fs.writeFileSync(file, raw('curl smtps'));
    const r = await run('curl', [
      '-sS',
      '-k',
      `smtps://127.0.0.1:${h.securePort}`,
      '--mail-from',
      alice,
      '--mail-rcpt',
      bob,
      '--upload-file',
      file,
      '--user',
      `${alice}:${h.password}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await h.messages(bob)).some((m) => m.subject === 'curl smtps')).toBe(true);
  });

  test('MAIL FROM another address is refused with 553 (curl exits non-zero)', async () => {
    const file = path.join(tmp, 'curl-spoof.eml');
    fs.writeFileSync(file, raw('curl spoof'));
    const r = await run('curl', [
      '-sS',
      '-v',
      `smtp://127.0.0.1:${h.port}`,
      '--mail-from',
      bob,
      '--mail-rcpt',
      bob,
      '--upload-file',
      file,
      '--user',
      `${alice}:${h.password}`,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/< 553 5\.7\.1 Sender address must be alice@sandbox\.test/);
    expect((await h.messages(bob)).some((m) => m.subject === 'curl spoof')).toBe(false);
  });
});
