import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { certificateForTrustStore } from '../../src/tls';
import { type Harness, mailbox, startHarness } from '../support/bridge-harness';
import { wire, wrap } from '../support/wire';

/**
 * Every TLS listener answers whatever name a client asks for (SNI) with the bridge's own
 * certificate, which also names 127.0.0.1 and ::1, and speaks only TLS 1.2+ with
 * forward-secret AEAD suites.
 */

let h: Harness;
let ca: Buffer;
let fingerprint: string;

beforeAll(async () => {
  h = await startHarness({
    config: { listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0, imapsPort: 0, smtpsPort: 0 } },
  });
  const pem = fs.readFileSync(path.join(h.stateDir, 'tls-cert.pem'), 'utf8');
  ({ data: ca, fingerprint } = certificateForTrustStore(pem, 'pem'));
});

afterAll(async () => {
  await h?.close();
});

/** A TLS handshake with the listener; its protocol and suite, or the error that ended it. */
function handshake(port: number, options: tls.ConnectionOptions): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ...options });
    socket.once('secureConnect', () => {
      resolve({ ok: true, detail: `${socket.getProtocol()} ${socket.getCipher().standardName}` });
      socket.destroy();
    });
    socket.once('error', (err) => resolve({ ok: false, detail: err.message }));
  });
}

/** The IMAP STARTTLS port, upgraded; SNI `servername`. */
async function imapStartTls(servername: string): Promise<tls.TLSSocket> {
  const w = await wire(h.bridge.ports.imap);
  await w.until(/^\* OK .*\r\n/m);
  await w.write('a STARTTLS\r\n');
  await w.until(/^a OK .*\r\n/m);
  w.socket.removeAllListeners('data');
  const secure = tls.connect({ socket: w.socket, servername, ca });
  await new Promise((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
  return secure;
}

test('imapflow configured with host "localhost" logs in over implicit TLS, trusting the exported certificate', async () => {
  const client = new ImapFlow({
    host: 'localhost',
    port: h.bridge.ports.imaps ?? 0,
    secure: true,
    tls: { ca: [ca] },
    auth: { user: mailbox, pass: h.password },
    logger: false,
  });
  await client.connect();
  expect((await client.list()).map((f) => f.path)).toContain('INBOX');
  await client.logout();
});

test('every TLS listener answers any SNI name with the bridge certificate', async () => {
  const ports = { imaps: h.bridge.ports.imaps ?? 0, smtps: h.bridge.ports.smtps ?? 0 };
  for (const [name, port] of Object.entries(ports))
    for (const servername of ['localhost', 'mail.example.org']) {
      const socket = tls.connect({ port, host: '127.0.0.1', servername, rejectUnauthorized: false });
      await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      expect(`${name} ${servername} ${socket.getPeerX509Certificate()?.fingerprint256}`).toBe(
        `${name} ${servername} ${fingerprint}`,
      );
      socket.destroy();
    }
  const upgraded = await imapStartTls('localhost');
  expect(upgraded.authorized).toBe(true);
  const reply = wrap(upgraded);
  await upgraded.write('b CAPABILITY\r\n');
  expect(await reply.until(/^b OK .*\r\n/m)).toMatch(/IMAP4rev1/);
  upgraded.destroy();
});

test('the self-signed certificate names localhost, 127.0.0.1 and ::1, and verifies when reached by IP', async () => {
  const cert = new X509Certificate(ca);
  expect(cert.subjectAltName?.split(', ').sort()).toEqual(
    ['DNS:localhost', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:127.0.0.1'].sort(),
  );
  // no SNI is sent for an IP address: the name checked is 127.0.0.1
  const byIp = await handshake(h.bridge.ports.imaps ?? 0, { ca, rejectUnauthorized: true });
  expect(byIp.ok).toBe(true);
});

describe('protocol versions and suites', () => {
  // the client side is opened up completely, so any refusal is the server's
  const anything = 'ALL:@SECLEVEL=0';
  const cases: Array<[string, tls.ConnectionOptions, boolean]> = [
    ['TLS 1.3', { minVersion: 'TLSv1.3' }, true],
    ['TLS 1.2 ECDHE-RSA-AES128-GCM-SHA256', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }, true],
    ['TLS 1.2 ECDHE-RSA-CHACHA20-POLY1305', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-CHACHA20-POLY1305' }, true],
    ['TLS 1.2 RSA key exchange AES128-GCM-SHA256', { maxVersion: 'TLSv1.2', ciphers: 'AES128-GCM-SHA256' }, false],
    ['TLS 1.2 RSA key exchange AES256-SHA', { maxVersion: 'TLSv1.2', ciphers: 'AES256-SHA' }, false],
    ['TLS 1.2 CBC ECDHE-RSA-AES128-SHA', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA' }, false],
    ['TLS 1.2 CBC ECDHE-RSA-AES256-SHA384', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-SHA384' }, false],
    ['TLS 1.1', { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: anything }, false],
    ['TLS 1.0', { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: anything }, false],
  ];
  test.each(cases)('%s', async (_name, options, accepted) => {
    for (const port of [h.bridge.ports.imaps ?? 0, h.bridge.ports.smtps ?? 0]) {
      const result = await handshake(port, {
        ...options,
        ciphers: options.ciphers && `${options.ciphers}:@SECLEVEL=0`,
      });
      expect(result.ok, `port ${port}: ${result.detail}`).toBe(accepted);
    }
  });
});
