import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DaemonProcess, mailbridge, spawnDaemon } from './support/cli-process';
import { freePort } from './support/free-port';

/**
 * `mailbridge client-config` for a demo with every listener on: each output read back by a
 * parser other than the one that wrote it (Python's ElementTree for the autoconfig XML,
 * plistlib for Apple's profile), every host, port, security mode, username and the
 * certificate checked; the autoconfig fetched over HTTP from the ops listener, at both paths
 * Thunderbird asks.
 */

const run = promisify(execFile);
const alice = 'alice@sandbox.test';
const ports = { imap: 0, imaps: 0, smtp: 0, smtps: 0, ops: 0 };
let demo: DaemonProcess;
let dir: string;
let config: string;

beforeAll(async () => {
  for (const k of Object.keys(ports) as Array<keyof typeof ports>) ports[k] = await freePort();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-client-config-'));
  demo = await spawnDaemon(['demo', '--messages', '3'], /Press Ctrl\+C/, {
    MAILBRIDGE_CONFIG: '',
    MAILBRIDGE_IMAP_PORT: String(ports.imap),
    MAILBRIDGE_IMAPS_PORT: String(ports.imaps),
    MAILBRIDGE_SMTP_PORT: String(ports.smtp),
    MAILBRIDGE_SMTPS_PORT: String(ports.smtps),
    MAILBRIDGE_OPS_PORT: String(ports.ops),
  });
  config = /Config:\s+(\S+)/.exec(demo.banner)?.[1] ?? '';
});
afterAll(async () => {
  await demo?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const clientConfig = async (client: string): Promise<string> => {
  const res = await mailbridge(['client-config', client, '--config', config]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout;
};

/** Runs a Python snippet on `input` (stdin) and parses what it prints as JSON. */
async function python(script: string, input: string): Promise<unknown> {
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, input);
  const { stdout } = await run('python3', ['-c', script, file]);
  return JSON.parse(stdout);
}

const readAutoconfig = `
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
p = root.find('emailProvider')
def server(s):
    return {'type': s.get('type'), **{c.tag: c.text for c in s}}
print(json.dumps({
  'root': root.tag, 'version': root.get('version'),
  'domains': [d.text for d in p.findall('domain')],
  'incoming': [server(s) for s in p.findall('incomingServer')],
  'outgoing': [server(s) for s in p.findall('outgoingServer')],
}))`;

const expectedAutoconfig = () => {
  const server = (type: string, port: number, socketType: string) => ({
    type,
    hostname: '127.0.0.1',
    port: String(port),
    socketType,
    authentication: 'password-cleartext',
    username: '%EMAILADDRESS%',
  });
  return {
    root: 'clientConfig',
    version: '1.1',
    domains: ['sandbox.test'],
    incoming: [server('imap', ports.imaps, 'SSL'), server('imap', ports.imap, 'STARTTLS')],
    outgoing: [server('smtp', ports.smtps, 'SSL'), server('smtp', ports.smtp, 'STARTTLS')],
  };
};

test('thunderbird: the autoconfig document names every server, from the command and over HTTP at both paths', async () => {
  expect(await python(readAutoconfig, await clientConfig('thunderbird'))).toEqual(expectedAutoconfig());
  for (const at of ['/mail/config-v1.1.xml', '/.well-known/autoconfig/mail/config-v1.1.xml']) {
    const res = await fetch(`http://127.0.0.1:${ports.ops}${at}?emailaddress=${encodeURIComponent(alice)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(await python(readAutoconfig, await res.text())).toEqual(expectedAutoconfig());
  }
});

test('apple: the profile trusts the bridge certificate and holds the account with both servers, no password', async () => {
  const profile = await clientConfig('apple');
  const parsed = (await python(
    `
import json, plistlib, sys, base64
with open(sys.argv[1], 'rb') as f:
    p = plistlib.load(f)
for item in p['PayloadContent']:
    if isinstance(item.get('PayloadContent'), bytes):
        item['PayloadContent'] = base64.b64encode(item['PayloadContent']).decode()
print(json.dumps(p))`,
    profile,
  )) as { PayloadType: string; PayloadContent: Array<Record<string, unknown>> };
  expect(parsed.PayloadType).toBe('Configuration');
  const cert = parsed.PayloadContent.find((p) => p.PayloadType === 'com.apple.security.root');
  const exported = await mailbridge(['cert', 'export', '--der', '--config', config]);
  const served = new X509Certificate(Buffer.from(String(cert?.PayloadContent), 'base64'));
  // the certificate the IMAPS listener presents, byte for byte
  expect(served.fingerprint256).toBe(/SHA-256 fingerprint: (\S+)/.exec(exported.stderr)?.[1]);
  expect(parsed.PayloadContent.find((p) => p.PayloadType === 'com.apple.mail.managed')).toMatchObject({
    EmailAccountType: 'EmailTypeIMAP',
    EmailAddress: alice,
    IncomingMailServerHostName: '127.0.0.1',
    IncomingMailServerPortNumber: ports.imaps,
    IncomingMailServerUseSSL: true,
    IncomingMailServerAuthentication: 'EmailAuthPassword',
    IncomingMailServerUsername: alice,
    OutgoingMailServerHostName: '127.0.0.1',
    OutgoingMailServerPortNumber: ports.smtps,
    OutgoingMailServerUseSSL: true,
    OutgoingMailServerAuthentication: 'EmailAuthPassword',
    OutgoingMailServerUsername: alice,
    OutgoingPasswordSameAsIncomingPassword: true,
  });
  expect(profile).not.toMatch(/<key>\w*Password<\/key>\s*<string>/);
});

test('outlook and generic: every server with its security, and the username', async () => {
  const outlook = await clientConfig('outlook');
  expect(outlook).toContain(`Incoming mail: server 127.0.0.1, port ${ports.imaps}, encryption method SSL/TLS`);
  expect(outlook).toContain(`Outgoing mail: server 127.0.0.1, port ${ports.smtps}, encryption method SSL/TLS`);
  expect(outlook).toContain(`User name ${alice}`);
  expect(outlook).toContain('Trusted Root Certification Authorities');
  const generic = (await clientConfig('generic')).split('\n');
  for (const [label, protocol, port, security] of [
    ['Incoming', 'IMAP', ports.imaps, 'SSL/TLS'],
    ['Incoming', 'IMAP', ports.imap, 'STARTTLS'],
    ['Outgoing', 'SMTP', ports.smtps, 'SSL/TLS'],
    ['Outgoing', 'SMTP', ports.smtp, 'STARTTLS'],
  ] as const)
    expect(generic).toContain(
      `  ${label}  ${protocol}  server 127.0.0.1  port ${port}  security ${security}  authentication normal password`,
    );
  expect(generic).toContain(`  Username  ${alice}`);
});
