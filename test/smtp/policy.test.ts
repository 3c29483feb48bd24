import os from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxRecipients } from '../../src/smtp/server';
import { alice, bob, dialog, plainAuth, startSmtpHarness, type SmtpHarness } from './harness';

/** Session rules: who may AUTH where, whose MAIL FROM, how big. */

const maxBytes = 64 * 1024;
let h: SmtpHarness;

/** An address of this machine that is not loopback, so the server sees a remote peer. */
function remoteAddress(): string {
  const found = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!found) throw new Error('this machine has no non-loopback IPv4 address to test the remote-peer policy with');
  return found.address;
}

beforeAll(async () => {
  h = await startSmtpHarness({ host: '0.0.0.0', config: { maxMessageBytes: maxBytes } });
});

afterAll(async () => {
  await h?.close();
});

const outboxSize = async () =>
  ((await (await fetch(`${h.sandbox.urls.control}/outbox`)).json()) as { outbox: unknown[] }).outbox.length;

describe('AUTH', () => {
  test('loopback plaintext: AUTH PLAIN/LOGIN, STARTTLS and SIZE are advertised and AUTH works', async () => {
    const d = await dialog('127.0.0.1', h.port);
    const ehlo = await d.send('EHLO client.test');
    expect(ehlo).toMatch(/250-AUTH PLAIN LOGIN/);
    expect(ehlo).toMatch(/250-STARTTLS/);
    expect(ehlo).toMatch(new RegExp(`250[- ]SIZE ${maxBytes}`));
    expect(await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`)).toMatch(/^235/);
    d.close();
  });

  test('remote plaintext: AUTH is neither advertised nor accepted; after STARTTLS it is', async () => {
    const d = await dialog(remoteAddress(), h.port);
    const ehlo = await d.send('EHLO client.test');
    expect(ehlo).not.toMatch(/AUTH/);
    expect(ehlo).toMatch(/STARTTLS/);
    expect(await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`)).toMatch(/^5\d\d /);
    expect(await d.send(`MAIL FROM:<${alice}>`)).toMatch(/^530 5\.7\.0 Authentication required: use STARTTLS/);
    expect(await d.starttls()).toMatch(/^220/);
    expect(await d.send('EHLO client.test')).toMatch(/250-AUTH PLAIN LOGIN/);
    expect(await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`)).toMatch(/^235/);
    expect(await d.send(`MAIL FROM:<${alice}>`)).toMatch(/^250/);
    d.close();
  });

  test('the implicit-TLS port takes AUTH from a remote peer', async () => {
    const info = await h
      .transport({ host: remoteAddress(), port: h.securePort, secure: true, requireTLS: false })
      .sendMail({ from: alice, to: bob, subject: 'remote smtps', text: 'x' });
    expect(info.response).toMatch(/^250/);
  });

  test('MAIL FROM without AUTH is refused with 530', async () => {
    const d = await dialog('127.0.0.1', h.port);
    await d.send('EHLO client.test');
    expect(await d.send(`MAIL FROM:<${alice}>`)).toMatch(/^530/);
    d.close();
  });
});

describe('MAIL FROM and RCPT TO', () => {
  test('only the logged-in mailbox may be the sender (case-insensitive)', async () => {
    const d = await dialog('127.0.0.1', h.port);
    await d.send('EHLO client.test');
    await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`);
    expect(await d.send(`MAIL FROM:<${bob}>`)).toMatch(/^553 5\.7\.1 Sender address must be alice@sandbox\.test/);
    expect(await d.send('MAIL FROM:<>')).toMatch(/^553/);
    expect(await d.send('MAIL FROM:<Alice@Sandbox.Test>')).toMatch(/^250/);
    d.close();
  });

  test(`more than ${maxRecipients} recipients are refused with 452`, async () => {
    const d = await dialog('127.0.0.1', h.port);
    await d.send('EHLO client.test');
    await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`);
    await d.send(`MAIL FROM:<${alice}>`);
    for (let i = 0; i < maxRecipients; i++) expect(await d.send(`RCPT TO:<r${i}@elsewhere.test>`)).toMatch(/^250/);
    expect(await d.send('RCPT TO:<one-too-many@elsewhere.test>')).toMatch(/^452/);
    d.close();
  });
});

describe('SIZE', () => {
  test('a declared SIZE over the limit is refused at MAIL FROM', async () => {
    const d = await dialog('127.0.0.1', h.port);
    await d.send('EHLO client.test');
    await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`);
    expect(await d.send(`MAIL FROM:<${alice}> SIZE=${maxBytes + 1}`)).toMatch(/^552/);
    expect(await d.send(`MAIL FROM:<${alice}> SIZE=${maxBytes}`)).toMatch(/^250/);
    d.close();
  });

  test('an oversized DATA (no SIZE declared) is refused with 552 5.3.4 and never reaches the vendor', async () => {
    const before = await outboxSize();
    const d = await dialog('127.0.0.1', h.port);
    await d.send('EHLO client.test');
    await d.send(`AUTH PLAIN ${plainAuth(alice, h.password)}`);
    await d.send(`MAIL FROM:<${alice}>`);
    await d.send(`RCPT TO:<${bob}>`);
    expect(await d.send('DATA')).toMatch(/^354/);
    const line = 'x'.repeat(998);
    const lines = Array.from({ length: Math.ceil(maxBytes / 1000) + 5 }, () => line);
    const body = `Subject: too big\r\n\r\n${lines.join('\r\n')}\r\n.\r\n`;
    expect(await d.send(body)).toBe(`552 5.3.4 Message exceeds the ${maxBytes}-byte size limit`);
    d.close();
    expect(await outboxSize()).toBe(before);
  });
});
