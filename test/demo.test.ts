import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { cliPath, type DaemonProcess, mailbridge, spawnDaemon } from './support/cli-process';
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
  const command = /run: (\S+ quarantine release .*?)(?:;|$)/.exec(refusal)?.[1] ?? '';
  const [program, ...args] = command.split(' ');
  // `mailbridge` is not on PATH in a checkout: the 550 names this checkout's bin, by its path
  expect(program).toBe(path.resolve(__dirname, '..', 'bin', 'mailbridge.js'));
  expect(args.join(' ')).toMatch(/^quarantine release q_\S+ --config \S+$/);
  const release = await mailbridge(args);
  expect(release.stdout).toMatch(/^Released q_/);
  expect(release.code).toBe(0);

  for (const printedCommand of ['status', 'quarantine list']) {
    const line = demo.banner.split('\n').find((l) => l.includes(` ${printedCommand} --config`)) ?? '';
    const [program, ...args] = line.trim().split(/\s+/);
    // `mailbridge` is not on PATH in a checkout: the printed program is this checkout's bin, by its path
    expect(program).toBe(path.resolve(__dirname, '..', 'bin', 'mailbridge.js'));
    fs.accessSync(program, fs.constants.X_OK);
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

describe('the demo with its defaults taken, and every way it can end', () => {
  /** Holds `port` on loopback if it is free (another program may hold it already: busy either way). */
  async function occupy(port: number): Promise<net.Server | null> {
    const server = net.createServer();
    return new Promise((resolve) => {
      server.once('error', () => resolve(null));
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  }
  const freshTmp = () => fs.mkdtempSync(path.join(dir, 'tmp-'));
  // tsx keeps its cache there too
  const demoDirs = (tmp: string) => fs.readdirSync(tmp).filter((n) => n.startsWith('mailbridge-demo-'));
  const noDemoEnv = { MAILBRIDGE_CONFIG: '', MAILBRIDGE_IMAP_PORT: '', MAILBRIDGE_SMTP_PORT: '' };

  test('busy default ports (IMAP, SMTP, ops) give way to free ones, printed; commands without --config find the demo', async () => {
    const held = await Promise.all([1143, 1025, 9925].map(occupy));
    const tmp = freshTmp();
    let busyDemo: DaemonProcess | null = null;
    try {
      busyDemo = await spawnDaemon(['demo', '--messages', '5'], /Press Ctrl\+C/, { ...noDemoEnv, TMPDIR: tmp });
      for (const [label, port] of [
        ['IMAP', 1143],
        ['SMTP', 1025],
        ['ops', 9925],
      ] as const) {
        const moved = new RegExp(
          `^${label} port ${port} is in use by another program: the demo uses (\\d+)$`,
          'm',
        ).exec(busyDemo.banner);
        expect(moved, busyDemo.banner).not.toBeNull();
        expect(busyDemo.banner).toContain(`127.0.0.1:${moved?.[1]}`);
      }
      const status = await mailbridge(['status'], { ...noDemoEnv, TMPDIR: tmp });
      expect(status.stderr).toMatch(/using the running demo's config .*config\.json/);
      expect(status.stdout).toMatch(/^alice@sandbox\.test$/m);
      expect(status.code).toBe(0);
    } finally {
      await busyDemo?.stop();
      for (const s of held) s?.close();
    }
    expect(demoDirs(tmp)).toEqual([]);
  });

  test("a MAILBRIDGE_CONFIG naming no file (the image's default) does not stop the demo; --config naming none does", async () => {
    const tmp = freshTmp();
    const missing = path.join(dir, 'no-such-config.json');
    const env = { ...noDemoEnv, TMPDIR: tmp, MAILBRIDGE_IMAP_PORT: '0', MAILBRIDGE_SMTP_PORT: '0' };
    let imageDemo: DaemonProcess | null = null;
    try {
      imageDemo = await spawnDaemon(['demo', '--messages', '5'], /Press Ctrl\+C/, {
        ...env,
        MAILBRIDGE_CONFIG: missing,
      });
      expect(imageDemo.banner).toContain(`MAILBRIDGE_CONFIG names ${missing}, which does not exist`);
    } finally {
      await imageDemo?.stop();
    }
    const explicit = await mailbridge(['demo', '--messages', '5', '--config', missing], env);
    expect(explicit.code).toBe(2);
    expect(explicit.stderr).toContain(`config file ${missing} does not exist`);
    expect(demoDirs(tmp)).toEqual([]);
  });

  test('a demo that fails to start leaves no temporary state', async () => {
    const held = net.createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const tmp = freshTmp();
    try {
      const { port } = held.address() as net.AddressInfo;
      const res = await mailbridge(['demo', '--messages', '5', '--imap-port', String(port)], {
        ...noDemoEnv,
        TMPDIR: tmp,
      });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`the IMAP port 127.0.0.1:${port} is already in use`);
    } finally {
      held.close();
    }
    expect(demoDirs(tmp)).toEqual([]);
  });

  test('Ctrl+C while the demo starts leaves no temporary state', async () => {
    const tmp = freshTmp();
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', cliPath, 'demo', '--messages', '5'], {
      env: { ...process.env, ...noDemoEnv, TMPDIR: tmp, MAILBRIDGE_IMAP_PORT: '0', MAILBRIDGE_SMTP_PORT: '0' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // the state directory exists from the first moment of the start: interrupt then
    await vi.waitFor(() => expect(demoDirs(tmp)).toHaveLength(1), { timeout: 30_000, interval: 5 });
    child.kill('SIGINT');
    await exited;
    expect(demoDirs(tmp)).toEqual([]);
  });
});
