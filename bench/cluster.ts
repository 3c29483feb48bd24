import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type Sandbox, startSandbox } from '../src/sandbox';
import { vendorSettings } from '../src/sandbox/vendor-settings';
import { freePort } from '../test/support/free-port';
import { startPostgres } from '../test/support/postgres';

/**
 * Several nodes (`BENCH_ONLY=cluster`): 50 mailboxes with 40 INBOX messages each, synced by one
 * node on PostgreSQL and then by three, every mailbox opened through a node chosen round-robin
 * (most sessions are forwarded to the owner); then the node owning the most mailboxes is killed
 * with SIGKILL and the time until every one of them has a new owner is taken from PostgreSQL.
 * The vendor's per-mailbox figures show the limits held. Figures are reported, never asserted.
 */

const mailboxCount = Number(process.env.BENCH_CLUSTER_MAILBOXES ?? 50);
const perMailbox = 40;
const leaseSeconds = 3;
const cli = path.join(__dirname, '..', 'src', 'cli.ts');
const secretKey = Buffer.alloc(32, 21).toString('base64');
const mailboxes = Array.from({ length: mailboxCount }, (_, i) => `user${i}@sandbox.test`);

interface Node {
  name: string;
  imapPort: number;
  child: ChildProcess;
}

async function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('data', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function startNode(name: string, sandbox: Sandbox, url: string, dir: string, seed: boolean): Promise<Node> {
  const [imapPort, smtpPort] = [await freePort(), await freePort()];
  const config = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts: mailboxes.map((mailbox) => ({ mailbox, ...(seed ? sandbox.issueTokens(mailbox) : {}) })),
      listen: { host: '127.0.0.1', imapPort, smtpPort },
      ops: { port: null },
      stateDir: path.join(dir, name),
      pollIntervalSeconds: 3600,
      logLevel: 'silent',
      state: { postgres: url, secretKey, node: name, leaseSeconds },
    }),
  );
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', cli, 'start', '--config', config], { stdio: 'ignore' });
  for (let i = 0; i < 300 && !(await greets(imapPort)); i++) await new Promise((r) => setTimeout(r, 100));
  return { name, imapPort, child };
}

/** LOGIN + SELECT INBOX on a raw socket; resolves with the EXISTS count. */
async function selectInbox(port: number, mailbox: string, password: string): Promise<number> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  const until = async (re: RegExp) => {
    while (!re.test(text)) await new Promise((r) => setTimeout(r, 2));
  };
  await until(/^\* OK/);
  socket.write(`a LOGIN ${mailbox} ${password}\r\nb SELECT INBOX\r\nc LOGOUT\r\n`);
  await until(/\r\nc OK/);
  socket.destroy();
  return Number(/\* (\d+) EXISTS/.exec(text)?.[1] ?? -1);
}

/** Opens every mailbox (round-robin over `ports`) until each shows all its messages; seconds. */
async function syncAll(ports: number[], passwords: Map<string, string>): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    mailboxes.map(async (mailbox, i) => {
      // the first SELECT of a folder syncs it; later ones answer from state until it is there
      while ((await selectInbox(ports[i % ports.length], mailbox, passwords.get(mailbox) ?? '')) < perMailbox)
        await new Promise((r) => setTimeout(r, 20));
    }),
  );
  return (performance.now() - t0) / 1000;
}

async function owners(db: pg.ClientConfig): Promise<Map<string, string>> {
  const client = new pg.Client(db);
  await client.connect();
  const { rows } = await client.query<{ account: string; owner: string }>(
    'SELECT account, owner FROM leases WHERE expires_at > now()',
  );
  await client.end();
  return new Map(rows.map((r) => [r.account, r.owner]));
}

async function settle(db: pg.ClientConfig, nodeCount: number): Promise<void> {
  // every mailbox owned, spread over the nodes alive
  for (;;) {
    const map = await owners(db);
    if (map.size === mailboxCount && new Set(map.values()).size === nodeCount) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function round(nodeCount: number): Promise<Record<string, unknown>> {
  const postgres = await startPostgres();
  const db = await postgres.createDatabase('bench');
  const url = db.url;
  const sandbox = await startSandbox({ messages: 0, mailboxes, latencyMs: 50 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-cluster-'));
  const nodes: Node[] = [];
  try {
    for (const mailbox of mailboxes)
      for (let i = 0; i < perMailbox; i++)
        await fetch(`${sandbox.urls.control}/inject`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ mailbox, message: { from: 'n@example.org', subject: `m${i}`, text: 'x' } }),
        });
    // tokens and bridge passwords, stored in PostgreSQL by the first node's config
    const seeded = path.join(dir, 'seed.json');
    const passwords = new Map<string, string>();
    nodes.push(await startNode('n1', sandbox, url, dir, true));
    fs.copyFileSync(path.join(dir, 'n1.json'), seeded);
    for (const mailbox of mailboxes) {
      const out = execFileSync(process.execPath, [
        '-r',
        'tsx/cjs',
        cli,
        'account',
        'password',
        '--mailbox',
        mailbox,
        '--config',
        seeded,
      ]).toString();
      passwords.set(mailbox, /: (\S+)\s*$/.exec(out.trim())?.[1] ?? '');
    }
    for (let n = 2; n <= nodeCount; n++) nodes.push(await startNode(`n${n}`, sandbox, url, dir, false));
    await settle(db, nodeCount);
    const syncSeconds = await syncAll(
      nodes.map((n) => n.imapPort),
      passwords,
    );
    const stats = mailboxes.map((m) => sandbox.stats(m));
    const result: Record<string, unknown> = {
      nodes: nodeCount,
      mailboxes: mailboxCount,
      messagesPerMailbox: perMailbox,
      syncSeconds: Number(syncSeconds.toFixed(2)),
      vendorMaxRequestsPerSecondPerMailbox: Math.max(...stats.map((s) => s.maxPerSecond)),
      vendorMaxInFlightPerMailbox: Math.max(...stats.map((s) => s.maxInFlight)),
      vendor429: stats.reduce((sum, s) => sum + s.rateLimited, 0),
    };
    if (nodeCount > 1) {
      const before = await owners(db);
      const counts = new Map<string, number>();
      for (const owner of before.values()) counts.set(owner, (counts.get(owner) ?? 0) + 1);
      const [victim, owned] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
      const t0 = performance.now();
      nodes.find((n) => n.name === victim)?.child.kill('SIGKILL');
      for (;;) {
        const now = await owners(db);
        const moved = [...before].filter(
          ([account, owner]) => owner === victim && now.get(account) && now.get(account) !== victim,
        );
        if (moved.length === owned) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      result.failover = {
        leaseSeconds,
        mailboxesMoved: owned,
        secondsUntilAllOwnedAgain: Number(((performance.now() - t0) / 1000).toFixed(2)),
        bound: `lease ${leaseSeconds} s + look every ${leaseSeconds / 3} s`,
      };
    }
    return result;
  } finally {
    for (const n of nodes) n.child.kill('SIGKILL');
    await sandbox.close();
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runClusterBench(): Promise<Record<string, unknown>> {
  return { singleNode: await round(1), threeNodes: await round(3) };
}
