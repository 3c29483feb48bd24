import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { control, mailbox, vendorFolder } from '../support/bridge-harness';
import type { VendorMessage } from '../../src/upstream/types';
import { must } from '../support/must';
import { freePort } from '../support/free-port';

/**
 * The daemon is killed with SIGKILL right after answering OK to a MOVE, an APPEND of a draft,
 * a STORE and a COPY into a label folder; after a restart every one of those is still there,
 * under the UIDs the client was given.
 */

const run = promisify(execFile);
const cli = path.join(__dirname, '..', '..', 'src', 'cli.ts');
let sandbox: Sandbox;
let dir: string;
let config: string;
let port: number;
let password: string;

async function startDaemon(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', cli, 'start', '--config', config], { stdio: 'ignore' });
  for (let i = 0; i < 150; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('data', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('the daemon did not start listening');
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function connect(): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    doSTARTTLS: false,
    auth: { user: mailbox, pass: password },
    logger: false,
  });
  await client.connect();
  return client;
}

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 40 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-crash-'));
  port = await freePort();
  config = path.join(dir, 'config.json');
  const tokens = sandbox.issueTokens(mailbox);
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: {
        readUrl: sandbox.urls.read,
        mailUrl: sandbox.urls.mail,
        graphUrl: sandbox.urls.graph,
        apiKey: sandbox.apiKey,
      },
      accounts: [{ mailbox, ...tokens }],
      listen: { host: '127.0.0.1', imapPort: port, smtpPort: await freePort() },
      ops: { port: 0 },
      stateDir: path.join(dir, 'state'),
      pollIntervalSeconds: 3600,
      logLevel: 'silent',
    }),
  );
  const { stdout } = await run(process.execPath, [
    '-r',
    'tsx/cjs',
    cli,
    'account',
    'password',
    '--mailbox',
    mailbox,
    '--config',
    config,
  ]);
  password = /: (\S+)\s*$/.exec(stdout.trim())?.[1] ?? '';
  expect(password).not.toBe('');
});

afterAll(async () => {
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('what the client was told OK survives SIGKILL of the daemon', async () => {
  let daemon = await startDaemon();
  let client = await connect();
  await client.mailboxOpen('INBOX');
  const [moving, flagging, labelling] = await vendorFolder(sandbox, 'INBOX');
  const uidOf = async (m: VendorMessage) =>
    ((await client.search({ header: { 'message-id': m.message_id } }, { uid: true })) || [])[0];

  const moved = await client.messageMove(String(await uidOf(moving)), 'Archive', { uid: true });
  const archiveUid = moved && [...(moved.uidMap?.values() ?? [])][0];
  const flagUid = await uidOf(flagging);
  await client.messageFlagsAdd(String(flagUid), ['\\Flagged'], { uid: true });
  const labelled = await client.messageCopy(String(await uidOf(labelling)), 'Labels/Keep', { uid: true });
  const labelUid = labelled && [...(labelled.uidMap?.values() ?? [])][0];
  const draft = Buffer.from(
    `From: ${mailbox}\r\nTo: bob@sandbox.test\r\nSubject: Unsent thoughts\r\nMessage-ID: <crash-draft@mailbridge.test>\r\n\r\nhalf written\r\n`,
  );
  const appended = must(await client.append('Drafts', draft, ['\\Draft']), 'APPENDUID');
  await killHard(daemon);

  daemon = await startDaemon();
  try {
    client = await connect();
    await client.mailboxOpen('Archive');
    const inArchive = must(
      await client.fetchOne(String(archiveUid), { envelope: true }, { uid: true }),
      'moved message',
    );
    expect(inArchive?.envelope?.messageId).toBe(moving.message_id);

    await client.mailboxOpen('INBOX');
    const flagged = must(
      await client.fetchOne(String(flagUid), { flags: true, envelope: true }, { uid: true }),
      'flagged message',
    );
    expect(flagged?.envelope?.messageId).toBe(flagging.message_id);
    expect(flagged?.flags?.has('\\Flagged')).toBe(true);
    expect(await uidOf(moving)).toBeUndefined();

    await client.mailboxOpen('Labels/Keep');
    const inLabel = must(
      await client.fetchOne(String(labelUid), { envelope: true }, { uid: true }),
      'labelled message',
    );
    expect(inLabel?.envelope?.messageId).toBe(labelling.message_id);

    await client.mailboxOpen('Drafts');
    const kept = await client.fetchOne(String(appended?.uid), { source: true }, { uid: true });
    expect(kept && (kept.source as Buffer).toString()).toContain('half written');
    await client.logout();

    // and the vendor agrees
    const all = await control<{ messages: VendorMessage[] }>(
      sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}`,
    );
    const byUid = new Map(all.messages.map((m) => [m.message_uid, m]));
    expect(byUid.get(moving.message_uid)?.folders).toEqual(['Archive']);
    expect(byUid.get(flagging.message_uid)?.is_starred).toBe(true);
    expect(byUid.get(labelling.message_uid)?.labels).toContain('Keep');
  } finally {
    await killHard(daemon);
  }
}, 120_000);
