import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { control } from '../support/bridge-harness';
import { type DaemonProcess, mailbridge, spawnDaemon } from '../support/cli-process';
import { rawSession, type RawSession } from '../support/raw-session';
import { vendorSettings } from '../../src/sandbox/vendor-settings';

/**
 * The real daemon (`mailbridge start`) and the real CLI in their own processes: status and
 * resync over the control socket, and reloads (SIGHUP, `mailbridge reload`) that add and
 * remove an account while another account's IDLE session stays connected and keeps getting
 * its updates.
 */

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';
let sandbox: Sandbox;
let dir: string;
let configFile: string;
let daemon: DaemonProcess;
let imapPort: number;
let idle: RawSession;
/** Messages in alice's INBOX when the IDLE session selected it. */
let inbox: number;

function writeConfig(accounts: Array<Record<string, string>>, extra: Record<string, unknown> = {}): void {
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts,
      listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
      ops: { port: 0 },
      stateDir: './state',
      pollIntervalSeconds: 1,
      logLevel: 'warn',
      ...extra,
    }),
  );
}

async function cli(...args: string[]): Promise<string> {
  const r = await mailbridge([...args, '--config', configFile]);
  if (r.code !== 0) throw new Error(`mailbridge ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function login(mailbox: string): Promise<RawSession> {
  const password = (await cli('account', 'password', '--mailbox', mailbox)).trim().split(' ').pop() ?? '';
  return rawSession(imapPort, mailbox, password);
}

async function inject(mailbox: string, subject: string): Promise<void> {
  await control(sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'carol@example.com', to: mailbox, subject, text: 'hi' },
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 30 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-control-'));
  configFile = path.join(dir, 'config.json');
  writeConfig([{ mailbox: alice, ...sandbox.issueTokens(alice) }]);
  daemon = await spawnDaemon(['start', '--config', configFile], /control .*\n/);
  imapPort = Number(/IMAP {3}127\.0\.0\.1:(\d+)/.exec(daemon.banner)?.[1]);
  idle = await login(alice);
  inbox = Number(/^\* (\d+) EXISTS/m.exec(await idle.run('SELECT INBOX'))?.[1]);
  idle.send('i1 IDLE');
  await idle.waitFor(/^\+ /m);
});

afterAll(async () => {
  idle?.close();
  await daemon?.stop();
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('start prints every listener', () => {
  for (const name of ['IMAP ', 'IMAPS', 'SMTP ', 'SMTPS', 'ops ', 'control'])
    expect(daemon.banner).toContain(`  ${name}`);
  expect(daemon.banner).toMatch(/ops {4}http:\/\/127\.0\.0\.1:\d+\/healthz/);
  expect(daemon.banner).toContain(path.join(dir, 'state', 'control.sock'));
});

test('SIGHUP adds an account while the other account stays in IDLE and keeps getting new mail', async () => {
  writeConfig([
    { mailbox: alice, ...sandbox.issueTokens(alice) },
    { mailbox: bob, ...sandbox.issueTokens(bob) },
  ]);
  daemon.child.kill('SIGHUP');
  // the daemon reloads when it gets to it: asked until it says so (each ask is a CLI process)
  let status = await cli('status');
  for (let i = 0; i < 50 && !status.includes(bob); i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = await cli('status');
  }
  expect(status).toContain(bob);
  const bobSession = await login(bob);
  expect(await bobSession.run('SELECT INBOX')).toMatch(/^\S+ OK/m);
  bobSession.close();

  await inject(alice, 'while bob was added');
  expect(await idle.waitFor(/^\* \d+ EXISTS\r\n/m)).toContain(`* ${inbox + 1} EXISTS`);
});

test('reload removes an account: its sessions end, the other IDLE session stays', async () => {
  const bobSession = await login(bob);
  writeConfig([{ mailbox: alice }], { fullSyncEveryPolls: 3, labelsFolder: 'Tags' });
  expect(await cli('account', 'remove', '--mailbox', bob)).toContain('Removed the tokens');
  const out = await cli('reload');
  expect(out).toContain(`removed: ${bob}`);
  expect(out).toContain('applied: accounts, fullSyncEveryPolls');
  expect(out).toContain('changed but needs a restart: labelsFolder');
  expect(await bobSession.waitFor(/^\* BYE .*\r\n/m)).toContain('no longer bridged');
  bobSession.close();

  await inject(alice, 'after bob left');
  expect(await idle.waitFor(/^\* \d+ EXISTS\r\n/m)).toContain(`* ${inbox + 2} EXISTS`);
  const status = await cli('status', '--json');
  expect(JSON.parse(status).accounts.map((a: { mailbox: string }) => a.mailbox)).toEqual([alice]);
});

test('status shows the token, the folders and the quarantine; resync keeps every UID', async () => {
  const status = await cli('status');
  expect(status).toMatch(new RegExp(`^${alice}$`, 'm'));
  expect(status).toMatch(/^ {2}token {5}(valid|refreshable) \(refresh token until 20/m);
  expect(status).toMatch(
    new RegExp(`^ {2}folder {4}INBOX: ${inbox + 2} messages, last sync 20\\S+, last poll 20`, 'm'),
  );
  expect(status).toMatch(/^ {2}quarantine 0 held/m);

  const other = await login(alice);
  await other.run('SELECT INBOX');
  const uids = (s: string) => (/^\* SEARCH(.*)\r\n/m.exec(s)?.[1] ?? '').trim().split(' ').map(Number);
  const before = uids(await other.run('UID SEARCH ALL'));
  const messages = await control<{ messages: Array<{ message_uid: string }> }>(
    sandbox,
    'GET',
    `/messages?mailbox=${alice}&folder=INBOX`,
  );
  // removed "forever" in webmail, behind the bridge's back: the repair notices, the rest keep their UIDs
  await control(sandbox, 'POST', '/delete', { mailbox: alice, message_uid: messages.messages[3].message_uid });
  expect(await cli('resync', '--mailbox', alice, '--folder', 'INBOX')).toBe(`ok    INBOX: ${inbox + 1} messages\n`);
  const after = uids(await other.run('UID SEARCH ALL'));
  other.close();
  expect(after).toEqual(before.filter((u) => u !== before[3]));

  const everything = await cli('resync', '--mailbox', alice);
  for (const folder of ['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam', 'Archive'])
    expect(everything).toMatch(new RegExp(`^ok {4}${folder}: \\d+ messages$`, 'm'));
});

test("doctor beside a running daemon asks the vendor about its accounts through the daemon's rate window", async () => {
  // the doctor's own client would send to a closed port: an ok line can only come from the daemon
  const r = await mailbridge(['doctor', '--config', configFile], { MAILBRIDGE_READ_URL: 'http://127.0.0.1:9' });
  expect(r.stdout).toMatch(
    new RegExp(
      `^ok {4}account ${alice}: tokens valid, bridge password set \\(asked through the running daemon\\)$`,
      'm',
    ),
  );
  expect(r.code, r.stdout + r.stderr).toBe(0);
});

test('the control commands say plainly when no daemon runs on the state directory', async () => {
  const elsewhere = path.join(dir, 'other.json');
  fs.writeFileSync(
    elsewhere,
    JSON.stringify({ ...JSON.parse(fs.readFileSync(configFile, 'utf8')), stateDir: './none' }),
  );
  const r = await mailbridge(['status', '--config', elsewhere]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('no mailbridge daemon runs on the state directory');
});

test('SIGTERM ends the daemon cleanly after a client dropped its connection in IDLE', async () => {
  // imap-core's 31-minute IDLE timer used to outlive the socket and keep the process running
  idle.close();
  expect(await daemon.stop()).toBe(0);
});
