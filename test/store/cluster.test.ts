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
import { hopKey, hopResponse } from '../../src/imap/node-hop';
import { preferredNode } from '../../src/store/pg/ownership';
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
const perAddress = 4;

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
    // low, so that counting the forwarding node's address instead of the client's would show
    limits: { maxConnectionsPerPeer: perAddress },
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

/** A raw IMAP session from `from` (a loopback address): the greeting, then `send`'s answers. */
async function session(port: number, from: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  socket.on('error', () => undefined);
  const until = async (re: RegExp) => {
    for (let i = 0; i < 2000 && !re.test(text) && !socket.destroyed; i++) await new Promise((r) => setTimeout(r, 5));
    return text;
  };
  const greeting = (await until(/\r\n/)).split('\r\n')[0];
  return {
    greeting,
    async send(tag: string, command: string): Promise<string> {
      socket.write(`${tag} ${command}\r\n`);
      const answer = await until(new RegExp(`(^|\r\n)${tag} (OK|NO|BAD)[^\r]*\r\n`));
      return new RegExp(`(^|\r\n)(${tag} [^\r]*)\r\n`).exec(answer)?.[2] ?? `(no answer: ${greeting} ${text})`;
    },
    close: () => socket.destroy(),
  };
}

it('counts a forwarded session under the client’s address on the owner, not the forwarding node’s', async () => {
  const mailbox = mailboxes[1];
  const owner = ownerOf(mailbox);
  const edge = nodes.find((n) => n !== owner);
  if (!owner || !edge) throw new Error('the mailbox has no owner');
  const password = passwords.get(mailbox);
  const open: Array<{ close(): void }> = [];
  try {
    // more forwarded sessions than the owner lets one address hold, each from its own address
    for (let i = 2; i < 3 + perAddress; i++) {
      const s = await session(edge.bridge.ports.imap, `127.0.0.${i}`);
      open.push(s);
      expect(await s.send('l', `LOGIN ${mailbox} ${password}`)).toMatch(/^l OK/);
      expect(await s.send('s', 'SELECT INBOX')).toMatch(/^s OK/);
    }
    // 127.0.0.2 holds one session through the edge: the owner lets it open only perAddress - 1 more
    for (let i = 1; i < perAddress; i++) {
      const s = await session(owner.bridge.ports.imap, '127.0.0.2');
      open.push(s);
      expect(await s.send('n', 'NOOP')).toMatch(/^n OK/);
    }
    const refused = await session(owner.bridge.ports.imap, '127.0.0.2');
    open.push(refused);
    expect(refused.greeting).toMatch(/Too many connections/);
  } finally {
    for (const s of open) s.close();
  }
});

it('takes a node’s word for a client’s address only with a proof made for this very connection', async () => {
  const mailbox = mailboxes[1];
  const owner = ownerOf(mailbox);
  if (!owner) throw new Error('the mailbox has no owner');
  const key = hopKey(secretKey);
  const nonceOf = (greeting: string) => greeting.trim().split(' ').pop() ?? '';
  const a = await session(owner.bridge.ports.imap, '127.0.0.1');
  const b = await session(owner.bridge.ports.imap, '127.0.0.1');
  try {
    // a proof made for another connection (a replay), or with another key
    expect(
      await a.send('r', `AUTHENTICATE PLAIN ${hopResponse(key, nonceOf(b.greeting), mailbox, '10.9.8.7')}`),
    ).toMatch(/^r NO/);
    const wrongKey = hopKey(Buffer.alloc(32, 99).toString('base64'));
    expect(
      await a.send('k', `AUTHENTICATE PLAIN ${hopResponse(wrongKey, nonceOf(a.greeting), mailbox, '10.9.8.7')}`),
    ).toMatch(/^k NO/);
    // a user acting as another one, with its own right password
    const other = mailboxes[2];
    const asOther = Buffer.from(`${other}\0${mailbox}\0${passwords.get(mailbox)}`).toString('base64');
    expect(await a.send('o', `AUTHENTICATE PLAIN ${asOther}`)).toMatch(/^o NO/);
    // the proof for this connection is taken
    expect(
      await b.send('h', `AUTHENTICATE PLAIN ${hopResponse(key, nonceOf(b.greeting), mailbox, '10.9.8.7')}`),
    ).toMatch(/^h OK/);
  } finally {
    a.close();
    b.close();
  }
});

it('answers a LOGIN to be forwarded while PostgreSQL is down with NO [UNAVAILABLE] and the reason', async () => {
  const mailbox = mailboxes[0];
  const edge = nodes.find((n) => n !== ownerOf(mailbox));
  if (!edge) throw new Error('no node but the owner');
  const s = await session(edge.bridge.ports.imap, '127.0.0.1');
  postgres.pause();
  try {
    expect(await s.send('l', `LOGIN ${mailbox} ${passwords.get(mailbox)}`)).toBe(
      "l NO [UNAVAILABLE] The bridge's database is unreachable; nothing was changed, try again shortly",
    );
  } finally {
    postgres.resume();
    s.close();
  }
});

it('tells a client of a mailbox handed over to a node that joined that the mailbox is moving', async () => {
  const joined = ['node-1', 'node-2', 'node-3', 'node-4'];
  const mailbox = mailboxes.find((m) => preferredNode(joined, m) === 'node-4');
  const owner = mailbox && ownerOf(mailbox);
  if (!mailbox || !owner) throw new Error('no mailbox prefers node-4');
  const s = await session(owner.bridge.ports.imap, '127.0.0.1');
  expect(await s.send('l', `LOGIN ${mailbox} ${passwords.get(mailbox)}`)).toMatch(/^l OK/);
  await startNode('node-4');
  // the owner's next look sees node-4 and hands the mailbox over
  await owner.bridge.reload();
  const text = await s.send('n', 'NOOP');
  expect(text).toMatch(/\* BYE This mailbox is moving to another bridge node; log in again in a moment\r\n/);
  s.close();
});
