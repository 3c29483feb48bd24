import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DaemonProcess, mailbridge, spawnDaemon } from './support/cli-process';
import { freePort } from './support/free-port';

/**
 * `mailbridge demo` tried as a new user would: the environment and a config file set its
 * ports and options as they do for `start`, every listener is printed, and the commands its
 * messages mention (the 550's quarantine release, status, quarantine list) work as printed.
 */

const alice = 'alice@sandbox.test';
let demo: DaemonProcess;
let dir: string;
const ports = { imap: 0, imaps: 0, smtp: 0, smtps: 0, ops: 0 };

beforeAll(async () => {
  for (const k of Object.keys(ports) as Array<keyof typeof ports>) ports[k] = await freePort();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-demo-test-'));
  const base = path.join(dir, 'base.json');
  fs.writeFileSync(base, JSON.stringify({ copyToFolder: 'move', pollIntervalSeconds: 2 }));
  demo = await spawnDaemon(['demo', '--messages', '20', '--config', base], /Press Ctrl\+C/, {
    MAILBRIDGE_IMAP_PORT: String(ports.imap),
    MAILBRIDGE_IMAPS_PORT: String(ports.imaps),
    MAILBRIDGE_SMTP_PORT: String(ports.smtp),
    MAILBRIDGE_SMTPS_PORT: String(ports.smtps),
    MAILBRIDGE_OPS_PORT: String(ports.ops),
  });
});

afterAll(async () => {
  await demo?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const printed = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(demo.banner)?.[1] ?? '';

test('the demo honours the environment and the config file, prints every listener and writes its effective config', async () => {
  for (const port of Object.values(ports)) expect(demo.banner).toContain(`127.0.0.1:${port}`);
  const greeting = await new Promise<string>((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: ports.imaps, rejectUnauthorized: false });
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString());
    });
    socket.once('error', reject);
  });
  expect(greeting).toMatch(/^\* OK/);

  const configFile = printed('Config:');
  expect((fs.statSync(configFile).mode & 0o777).toString(8)).toBe('600');
  const written = JSON.parse(fs.readFileSync(configFile, 'utf8'));
  expect(written.copyToFolder).toBe('move');
  expect(written.listen).toMatchObject({ imapsPort: ports.imaps, smtpsPort: ports.smtps });
  expect(JSON.stringify(written)).not.toMatch(/sbx_(at|rt)_/);
});

test('the quarantine release command of a 550 works as printed, and so do status and quarantine list', async () => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: ports.smtp,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: alice, pass: printed('Password') },
  });
  const refusal = await transport
    .sendMail({ from: alice, to: 'bob@sandbox.test', subject: 'you are a lottery winner', text: 'hi' })
    .then(
      () => '',
      (err: Error) => err.message,
    );
  transport.close();
  const command = /run: (mailbridge quarantine release .*?)(?:;|$)/.exec(refusal)?.[1];
  expect(command).toMatch(/^mailbridge quarantine release q_\S+ --config \S+$/);
  const release = await mailbridge((command ?? '').split(' ').slice(1));
  expect(release.stdout).toMatch(/^Released q_/);
  expect(release.code).toBe(0);

  for (const printedCommand of ['status', 'quarantine list']) {
    const line = demo.banner.split('\n').find((l) => l.includes(`mailbridge ${printedCommand} --config`)) ?? '';
    const args = line.trim().split(/\s+/).slice(1);
    const r = await mailbridge(args);
    expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(printedCommand === 'status' ? /^alice@sandbox\.test$/m : /q_\S+ {2}released/);
  }
});

test('healthcheck needs only the listener settings: it passes on the demo and fails where nothing listens', async () => {
  const env = { MAILBRIDGE_CONFIG: '', MAILBRIDGE_OPS_PORT: String(ports.ops) };
  expect((await mailbridge(['healthcheck'], env)).code).toBe(0);
  expect((await mailbridge(['healthcheck', '--ready'], env)).code).toBe(0);
  const nothing = await freePort();
  expect((await mailbridge(['healthcheck'], { ...env, MAILBRIDGE_OPS_PORT: String(nothing) })).code).toBe(1);
  // with the ops listener off, the IMAP greeting decides
  expect(
    (
      await mailbridge(['healthcheck'], {
        ...env,
        MAILBRIDGE_OPS_PORT: 'off',
        MAILBRIDGE_IMAP_PORT: String(ports.imap),
      })
    ).code,
  ).toBe(0);
});
