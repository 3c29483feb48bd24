import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningBridge, startBridge } from '../../src/bridge';
import { parseConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { type Sandbox, startSandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import { control } from '../support/bridge-harness';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * Three bridge nodes on one PostgreSQL and one vendor: each mailbox served by one node, a
 * client of any node forwarded to it (IMAP after LOGIN, SMTP submissions), changes made
 * through one node reaching an IDLE client that came in through another.
 */

const mailboxes = ['alice@sandbox.test', 'bob@sandbox.test', 'carol@sandbox.test', 'dave@sandbox.test'];
const secretKey = Buffer.alloc(32, 13).toString('base64');
let postgres: Postgres;
let sandbox: Sandbox;
let url: string;
const nodes: Array<{ name: string; bridge: RunningBridge; stateDir: string }> = [];
const passwords = new Map<string, string>();

async function startNode(name: string) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailbridge-${name}-`));
  const config = parseConfig({
    vendor: vendorSettings(sandbox),
    accounts: mailboxes.map((mailbox) => ({ mailbox })),
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    pollIntervalSeconds: 3600,
    logLevel: 'silent',
    ops: { port: null },
    state: { postgres: url, secretKey, node: name, leaseSeconds: 30 },
  });
  const bridge = await startBridge(config, createLogger('silent'));
  nodes.push({ name, bridge, stateDir });
  return bridge;
}

/** The node whose account registry serves the mailbox. */
const ownerOf = (mailbox: string) => nodes.find((n) => n.bridge.accounts.get(mailbox));

async function client(bridge: RunningBridge, mailbox: string): Promise<ImapFlow> {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: bridge.ports.imap,
    secure: false,
    doSTARTTLS: false,
    auth: { user: mailbox, pass: passwords.get(mailbox) ?? '' },
    logger: false,
  });
  await c.connect();
  return c;
}

beforeAll(async () => {
  postgres = await startPostgres();
  const db = await postgres.createDatabase('cluster');
  url = db.url;
  sandbox = await startSandbox({ messages: 6, mailboxes });
  const first = await startNode('node-1');
  for (const mailbox of mailboxes) {
    await first.secrets.putTokens(mailbox, sandbox.issueTokens(mailbox));
    passwords.set(mailbox, await first.secrets.setBridgePassword(mailbox));
  }
  await first.reload();
  await startNode('node-2');
  await startNode('node-3');
  // node-1 hands over what the nodes that joined prefer; each node then takes its share
  for (let round = 0; round < 2; round++) for (const n of nodes) await n.bridge.reload();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) {
    await n.bridge.close();
    fs.rmSync(n.stateDir, { recursive: true, force: true });
  }
  await sandbox?.close();
  await postgres?.stop();
});

it('serves each mailbox on exactly one node', () => {
  for (const mailbox of mailboxes)
    expect(nodes.filter((n) => n.bridge.accounts.get(mailbox)).map((n) => n.name)).toHaveLength(1);
  expect(new Set(mailboxes.map((m) => ownerOf(m)?.name)).size).toBeGreaterThan(1);
});

it('forwards an IMAP session from any node to the owner: same UIDVALIDITY and UIDs everywhere', async () => {
  const mailbox = mailboxes[0];
  const seen: unknown[] = [];
  for (const n of nodes) {
    const c = await client(n.bridge, mailbox);
    const box = await c.mailboxOpen('INBOX');
    const uids = (await c.fetchAll('1:*', { uid: true })).map((m) => m.uid);
    seen.push({ uidValidity: box.uidValidity, uidNext: box.uidNext, uids });
    await c.logout();
  }
  expect(seen[1]).toEqual(seen[0]);
  expect(seen[2]).toEqual(seen[0]);
});

it('tells an IDLE client on one node of a STORE made through another node', async () => {
  // the sandbox's corpus is the first mailbox's
  const mailbox = mailboxes[0];
  const owner = ownerOf(mailbox);
  const [watcherNode, writerNode] = nodes.filter((n) => n !== owner);
  const watcher = await client(watcherNode.bridge, mailbox);
  await watcher.mailboxOpen('INBOX');
  const flagged = new Promise<string[]>((resolve) =>
    watcher.on('flags', (e: { flags: Set<string> }) => resolve([...e.flags])),
  );
  void watcher.idle();
  const writer = await client(writerNode.bridge, mailbox);
  await writer.mailboxOpen('INBOX');
  await writer.messageFlagsAdd('1', ['$FromAnotherNode'], { uid: true });
  expect(await flagged).toContain('$FromAnotherNode');
  await writer.logout();
  await watcher.logout();
});

it('accepts a submission on a node that does not serve the mailbox, sent by the one that does', async () => {
  const mailbox = mailboxes[2];
  const elsewhere = nodes.find((n) => n !== ownerOf(mailbox));
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: elsewhere?.bridge.ports.smtp,
    secure: false,
    ignoreTLS: true,
    auth: { user: mailbox, pass: passwords.get(mailbox) },
  });
  const info = await transport.sendMail({
    from: mailbox,
    to: 'someone@example.net',
    subject: 'Through another node',
    text: 'hello',
  });
  transport.close();
  expect(info.response).toMatch(/^250 /);
  const { outbox } = await control<{ outbox: Array<{ from: string; subject: string }> }>(sandbox, 'GET', '/outbox');
  expect(outbox.filter((e) => e.subject === 'Through another node').map((e) => e.from)).toEqual([mailbox]);
});

it('passes commands pipelined after LOGIN on to the owner', async () => {
  const mailbox = mailboxes[0];
  const elsewhere = nodes.find((n) => n !== ownerOf(mailbox));
  const socket = net.connect(elsewhere?.bridge.ports.imap ?? 0, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  await once(socket, 'data');
  socket.write(`a1 LOGIN ${mailbox} ${passwords.get(mailbox)}\r\na2 SELECT INBOX\r\na3 LOGOUT\r\n`);
  await once(socket, 'close');
  expect(text).toMatch(/\r\na1 OK /);
  expect(text).toMatch(/\r\na2 OK \[READ-WRITE\]/);
  expect(text).toMatch(/\r\na3 OK /);
});

it('answers NO [UNAVAILABLE], not a password failure, while no node serves the mailbox', async () => {
  const mailbox = 'eve@sandbox.test';
  // a lease no live node holds: what a takeover looks like before the new owner has loaded
  const db = new pg.Client(url);
  await db.connect();
  await db.query(
    "INSERT INTO leases (account, owner, epoch, expires_at) VALUES ($1, 'gone-node', 1, now() + interval '1 hour')",
    [mailbox],
  );
  await db.end();
  const first = nodes[0].bridge;
  // never used: no node gets to serve it during this test
  await first.secrets.putTokens(mailbox, { accessToken: 'at-eve', refreshToken: 'rt-eve' });
  const password = await first.secrets.setBridgePassword(mailbox);
  // what the next look (or the NOTIFY of the write) would make the other node read
  await nodes[1].bridge.secrets.reread?.();
  const socket = net.connect(nodes[1].bridge.ports.imap, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  await once(socket, 'data');
  socket.write(`a1 LOGIN ${mailbox} wrong-password\r\na2 LOGIN ${mailbox} ${password}\r\na3 LOGOUT\r\n`);
  await once(socket, 'close');
  expect(text).toMatch(/\r\na1 NO \[AUTHENTICATIONFAILED\]/);
  expect(text).toMatch(/\r\na2 NO \[UNAVAILABLE\] This mailbox is moving to another bridge node/);
});
