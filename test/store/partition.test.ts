import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningBridge, startBridge } from '../../src/bridge';
import { parseConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { type Sandbox, startSandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import { preferredNode } from '../../src/store/pg/ownership';
import { type Postgres, queryOnce, startPostgres } from '../support/postgres';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

/**
 * A partition between one node and PostgreSQL: the node reaches PostgreSQL through a TCP proxy
 * that is cut (connections hang, nothing is refused), while it still reaches the vendor and its
 * clients. The cut falls at the worst moment, just after a lease renewal was answered, with
 * clients writing. The cut node must stop serving before its leases can run out on
 * PostgreSQL's clock, the other node takes the mailboxes once they did, and no write of the cut
 * node reaches the vendor after its lease ran out. Times are compared, not measured: PostgreSQL's
 * lease expiry against when the test saw something happen (which is never earlier than when it
 * happened), both read from this machine's clock.
 */

const mailboxes = ['alice@sandbox.test', 'bob@sandbox.test', 'carol@sandbox.test'];
const secretKey = Buffer.alloc(32, 21).toString('base64');
const leaseSeconds = 3;
const other = 'steady';
// a name every mailbox prefers over the other node's: the cut node serves them all
const cutName =
  Array.from({ length: 200 }, (_, i) => `cut-${i}`).find((n) =>
    mailboxes.every((m) => preferredNode([n, other], m) === n),
  ) ?? '';

let postgres: Postgres;
let db: { host: string; user: string; database: string; url: string };
let sandbox: Sandbox;
let pgProxy: TcpProxy;
let vendorProxy: TcpProxy;
const bridges = new Map<string, { bridge: RunningBridge; stateDir: string }>();
const passwords = new Map<string, string>();
/** When each vendor write command of the cut node reached the sandbox (Date.now()). */
const cutNodeWrites: number[] = [];

/**
 * Added to the cut node's lease clock at the cut: as if its renewals had been stuck for two thirds
 * of a lease already, so it reaches its safety margin at its next upkeep instead of a second of
 * real time later, and a loaded machine's pauses cannot eat the margin it keeps from PostgreSQL's
 * expiry. The margin itself, on a clock moved by hand, is pg-outage.test.ts's.
 */
let cutClockAhead = 0;

async function startNode(
  name: string,
  postgresUrl: string,
  vendor: ReturnType<typeof vendorSettings>,
  leaseClock?: () => number,
) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailbridge-${name}-`));
  const config = parseConfig({
    vendor,
    accounts: mailboxes.map((mailbox) => ({ mailbox })),
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    pollIntervalSeconds: 3600,
    logLevel: 'silent',
    ops: { port: null },
    state: { postgres: postgresUrl, secretKey, node: name, leaseSeconds },
  });
  const bridge = await startBridge(config, createLogger('silent'), { leaseClock });
  bridges.set(name, { bridge, stateDir });
  return bridge;
}

const query = <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> =>
  queryOnce<T>(db, sql, values);

interface LeaseRow {
  account: string;
  owner: string;
  epoch: number;
  expires_at: Date;
}
const leases = async () =>
  new Map(
    (await query<LeaseRow>('SELECT account, owner, epoch::int, expires_at FROM leases')).map((r) => [r.account, r]),
  );

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw IMAP session; `seen(re)` resolves with Date.now() once the server's text matches. */
async function session(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  socket.on('error', () => undefined);
  const seen = async (re: RegExp) => {
    for (let i = 0; i < 6000 && !re.test(text); i++) await pause(5);
    if (!re.test(text)) throw new Error(`not seen: ${re}; the session said: ${text}`);
    return Date.now();
  };
  await seen(/\r\n/);
  return {
    seen,
    text: () => text,
    async send(tag: string, command: string): Promise<string> {
      socket.write(`${tag} ${command}\r\n`);
      await seen(new RegExp(`(^|\r\n)${tag} (OK|NO|BAD)[^\r]*\r\n|\\* BYE`));
      return new RegExp(`(^|\r\n)(${tag} [^\r]*)\r\n`).exec(text)?.[2] ?? '';
    },
    close: () => socket.destroy(),
  };
}

beforeAll(async () => {
  if (!cutName) throw new Error('no node name that every mailbox prefers');
  postgres = await startPostgres();
  db = await postgres.createDatabase('partition');
  sandbox = await startSandbox({ messages: 40, mailboxes });
  pgProxy = await startTcpProxy({ path: path.join(postgres.socketDir, '.s.PGSQL.5432') });
  const read = new URL(sandbox.urls.read);
  vendorProxy = await startTcpProxy({ port: Number(read.port), host: read.hostname });
  vendorProxy.onChunk((chunk, direction) => {
    if (direction !== 'up') return;
    for (const _ of chunk.toString().matchAll(/"command":\s*"(flag|label|move)"/g)) cutNodeWrites.push(Date.now());
  });
  const cut = await startNode(
    cutName,
    `postgresql://postgres@127.0.0.1:${pgProxy.port}/partition`,
    { ...vendorSettings(sandbox), readUrl: `http://127.0.0.1:${vendorProxy.port}` },
    () => performance.now() + cutClockAhead,
  );
  for (const mailbox of mailboxes) {
    await cut.secrets.putTokens(mailbox, sandbox.issueTokens(mailbox));
    passwords.set(mailbox, await cut.secrets.setBridgePassword(mailbox));
  }
  await cut.reload();
  await startNode(other, db.url, vendorSettings(sandbox));
}, 120_000);

afterAll(async () => {
  // the cut node stops while still cut off: its leases are left to run out
  for (const { bridge, stateDir } of bridges.values()) {
    await bridge.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  await pgProxy?.close();
  await vendorProxy?.close();
  await sandbox?.close();
  await postgres?.stop();
});

it('stops serving on the cut node before its leases run out; the other node takes over; no late vendor write', async () => {
  const cut = bridges.get(cutName)?.bridge;
  const steady = bridges.get(other)?.bridge;
  if (!cut || !steady) throw new Error('the nodes did not start');
  for (const m of mailboxes) expect(cut.accounts.get(m)).toBeTruthy();

  // a session on every mailbox, and writers on the first one that go on until the node lets go
  const watchers = await Promise.all(
    mailboxes.map(async (m) => {
      const s = await session(cut.ports.imap);
      expect(await s.send('l', `LOGIN ${m} ${passwords.get(m)}`)).toMatch(/^l OK/);
      expect(await s.send('s', 'SELECT INBOX')).toMatch(/^s OK/);
      return s;
    }),
  );
  const told = { ok: 0, no: 0, unanswered: 0 };
  let next = 0;
  const writers = await Promise.all(
    Array.from({ length: 3 }, async () => {
      const s = await session(cut.ports.imap);
      await s.send('l', `LOGIN ${mailboxes[0]} ${passwords.get(mailboxes[0])}`);
      await s.send('s', 'SELECT INBOX');
      return s;
    }),
  );
  const writing = writers.map(async (s) => {
    for (;;) {
      const n = next++;
      const answer = await s.send(`w${n}`, `UID STORE ${(n % 30) + 1} +FLAGS (Part${n})`);
      if (/^w\d+ OK/.test(answer)) told.ok++;
      else if (/^w\d+ NO/.test(answer)) told.no++;
      else told.unanswered++;
      if (/\* BYE/.test(s.text())) return;
    }
  });

  for (let i = 0; i < 3000 && told.ok < 5; i++) await pause(10);
  // the cut: just after a renewal was answered, with writes going on
  await pgProxy.cutAfter((chunk, direction) => direction === 'down' && /UPDATE \d+\0/.test(chunk.toString('latin1')));
  cutClockAhead = (leaseSeconds * 1000 * 2) / 3;
  const held = await leases();
  for (const m of mailboxes) expect(held.get(m)?.owner).toBe(cutName);
  // a write begun after the cut: the node cannot confirm its lease, so it never reaches the vendor
  const late = await session(cut.ports.imap);
  await late.send('l', `LOGIN ${mailboxes[0]} ${passwords.get(mailboxes[0])}`);
  await late.send('s', 'SELECT INBOX');
  const lateAnswer = late.send('w', 'UID STORE 31 +FLAGS (Late)');

  // every session of the cut node hears it is moving before its lease could run out
  for (const [i, m] of mailboxes.entries()) {
    const byeSeen = await watchers[i].seen(/\* BYE This mailbox is moving/);
    expect(byeSeen).toBeLessThan(held.get(m)?.expires_at.getTime() ?? 0);
  }
  await Promise.all(writing);
  expect(told.ok).toBeGreaterThanOrEqual(5);
  expect(await lateAnswer).not.toMatch(/^w OK/);

  // the steady node takes every mailbox, once the cut node's lease ran out on PostgreSQL's clock
  for (const m of mailboxes) {
    const dead = held.get(m) as LeaseRow;
    let now = await leases();
    for (let i = 0; i < 400 && now.get(m)?.owner !== other; i++) {
      await pause(50);
      now = await leases();
    }
    const taken = now.get(m) as LeaseRow;
    expect(taken.owner).toBe(other);
    expect(taken.epoch).toBeGreaterThan(dead.epoch);
    expect(taken.expires_at.getTime() - leaseSeconds * 1000).toBeGreaterThanOrEqual(dead.expires_at.getTime());
  }
  const via = await session(steady.ports.imap);
  expect(await via.send('l', `LOGIN ${mailboxes[0]} ${passwords.get(mailboxes[0])}`)).toMatch(/^l OK/);
  expect(await via.send('s', 'SELECT INBOX')).toMatch(/^s OK/);
  via.close();

  // the cut node's vendor writes: none after its lease ran out, none told NO or begun after the cut
  const expiry = held.get(mailboxes[0])?.expires_at.getTime() ?? 0;
  expect(cutNodeWrites.filter((at) => at >= expiry)).toEqual([]);
  expect(cutNodeWrites.length).toBeGreaterThanOrEqual(told.ok);
  expect(cutNodeWrites.length).toBeLessThanOrEqual(told.ok + told.unanswered);
  for (const s of [...watchers, ...writers, late]) s.close();
});
