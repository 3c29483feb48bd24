import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type Sandbox, startSandbox } from '../src/sandbox';
import { vendorSettings } from '../src/sandbox/vendor-settings';
import { preferredNode } from '../src/store/pg/ownership';
import { freePort } from '../test/support/free-port';
import { startPostgres } from '../test/support/postgres';
import { startTcpProxy } from '../test/support/tcp-proxy';

/**
 * Several nodes (`BENCH_ONLY=cluster`): 50 mailboxes with 40 INBOX messages each, synced by one
 * node on PostgreSQL and then by three, every mailbox opened through a node chosen round-robin
 * (most sessions are forwarded to the owner); then the node owning the most mailboxes is killed
 * with SIGKILL and the time until every one of them has a new owner is taken from PostgreSQL.
 * Then PostgreSQL is stopped for 20 s and the nodes' recovery timed, and one node is cut off
 * from PostgreSQL (connections hang) and the takeover of its mailboxes timed. The vendor's
 * per-mailbox figures show the limits held. Figures are reported, never asserted.
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

async function startNode(
  name: string,
  sandbox: Sandbox,
  url: string,
  dir: string,
  seed: boolean,
  accounts: string[] = mailboxes,
): Promise<Node> {
  const [imapPort, smtpPort] = [await freePort(), await freePort()];
  const config = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts: accounts.map((mailbox) => ({ mailbox, ...(seed ? sandbox.issueTokens(mailbox) : {}) })),
      listen: { host: '127.0.0.1', imapPort, smtpPort },
      ops: { port: null },
      stateDir: path.join(dir, name),
      pollIntervalSeconds: 3600,
      logLevel: 'silent',
      state: { postgres: url, secretKey, node: name, leaseSeconds },
    }),
  );
  // started as bin/mailbridge.js starts it: with the collector util/memory.ts calls after large jobs
  const child = spawn(process.execPath, ['--expose-gc', '-r', 'tsx/cjs', cli, 'start', '--config', config], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 300 && !(await greets(imapPort)); i++) await new Promise((r) => setTimeout(r, 100));
  return { name, imapPort, child };
}

/** LOGIN, `command`, LOGOUT on a raw socket; resolves with what the server said. */
async function exchange(port: number, mailbox: string, password: string, command: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  socket.on('error', () => undefined);
  const until = async (re: RegExp) => {
    while (!re.test(text)) {
      if (socket.destroyed) return;
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  await until(/^\* OK/);
  socket.write(`a LOGIN ${mailbox} ${password}\r\nb ${command}\r\nc LOGOUT\r\n`);
  await until(/\r\nc OK/);
  socket.destroy();
  return text;
}

/** LOGIN + SELECT INBOX; resolves with the EXISTS count (-1 when not answered). */
async function selectInbox(port: number, mailbox: string, password: string): Promise<number> {
  const text = await exchange(port, mailbox, password, 'SELECT INBOX');
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

/** A new bridge password for `mailbox`, stored by the node whose config is `config`. */
function bridgePassword(config: string, mailbox: string): string {
  const out = execFileSync(process.execPath, [
    '-r',
    'tsx/cjs',
    cli,
    'account',
    'password',
    '--mailbox',
    mailbox,
    '--config',
    config,
  ]).toString();
  return /: (\S+)\s*$/.exec(out.trim())?.[1] ?? '';
}

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number | undefined): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
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
    for (const mailbox of mailboxes) passwords.set(mailbox, bridgePassword(seeded, mailbox));
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

/**
 * A large mailbox changes owner: one node syncs its INBOX into PostgreSQL, a second node (which
 * the mailbox does not prefer) waits beside it; the first is killed with SIGKILL, and the second
 * takes the lease, loads the whole state into its in-memory copy and answers SELECT. Reported:
 * the survivor's memory before and after, the time from the kill to the new lease (the lease
 * bound) and from the new lease to the first full SELECT (loading the state).
 */
async function largeTakeover(): Promise<Record<string, unknown>> {
  const size = Number(process.env.BENCH_CLUSTER_LARGE ?? 100_000);
  const big = 'alice@sandbox.test';
  const postgres = await startPostgres();
  const db = await postgres.createDatabase('large');
  const sandbox = await startSandbox({ messages: size, mailboxes: [big] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-large-'));
  // names the mailbox prefers in this order, so the first node owns it while both live
  const [first, second] = ['a', 'b', 'c', 'd']
    .map((x) => `large-${x}`)
    .sort((x, y) => (preferredNode([x, y], big) === x ? -1 : 1));
  const nodes: Node[] = [];
  try {
    nodes.push(await startNode(first, sandbox, db.url, dir, true, [big]));
    const password = bridgePassword(path.join(dir, `${first}.json`), big);
    const total = Number(
      /MESSAGES (\d+)/.exec(await exchange(nodes[0].imapPort, big, password, 'STATUS INBOX (MESSAGES)'))?.[1] ?? 0,
    );
    const t0 = performance.now();
    while ((await selectInbox(nodes[0].imapPort, big, password)) < total) await new Promise((r) => setTimeout(r, 500));
    const syncSeconds = (performance.now() - t0) / 1000;
    const ownerRss = rssMb(nodes[0].child.pid);
    nodes.push(await startNode(second, sandbox, db.url, dir, false, [big]));
    await new Promise((r) => setTimeout(r, leaseSeconds * 1000));
    const standbyRss = rssMb(nodes[1].child.pid);

    const killedAt = Date.now();
    nodes[0].child.kill('SIGKILL');
    let leasedAt = 0;
    for (;;) {
      const client = new pg.Client(db);
      await client.connect();
      const { rows } = await client.query<{ owner: string; since: Date }>(
        'SELECT owner, expires_at - make_interval(secs => $2) AS since FROM leases WHERE account = $1',
        [big, leaseSeconds],
      );
      await client.end();
      if (rows[0]?.owner === second) {
        leasedAt = rows[0].since.getTime();
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    while ((await selectInbox(nodes[1].imapPort, big, password)) < total) await new Promise((r) => setTimeout(r, 50));
    const servedAt = Date.now();
    const rightAfter = rssMb(nodes[1].child.pid);
    await new Promise((r) => setTimeout(r, 5_000));
    return {
      messages: size,
      inboxMessages: total,
      leaseSeconds,
      firstSyncSeconds: Number(syncSeconds.toFixed(1)),
      ownerRssMb: ownerRss,
      standbyRssMb: standbyRss,
      secondsFromKillToNewLease: Number(((leasedAt - killedAt) / 1000).toFixed(2)),
      secondsFromNewLeaseToFullSelect: Number(((servedAt - leasedAt) / 1000).toFixed(2)),
      newOwnerRssMbRightAfter: rightAfter,
      newOwnerRssMb5sLater: rssMb(nodes[1].child.pid),
    };
  } finally {
    for (const n of nodes) n.child.kill('SIGKILL');
    await sandbox.close();
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const seconds = (since: number) => Number(((performance.now() - since) / 1000).toFixed(2));

/**
 * Three nodes, 12 mailboxes; the first node reaches PostgreSQL through a TCP proxy. PostgreSQL
 * is stopped for 20 s and started again: reported, the time from its start command until every
 * mailbox has a live lease and until each answers SELECT with all its messages through a node chosen
 * round-robin. Then the proxy is cut (the first node's connections hang): reported, the time
 * until every mailbox of that node has a new owner and answers SELECT through another node.
 */
async function outageAndPartition(): Promise<Record<string, unknown>> {
  const outageSeconds = 20;
  const postgres = await startPostgres();
  const db = await postgres.createDatabase('outage');
  const chosen = mailboxes.slice(0, 12);
  const sandbox = await startSandbox({ messages: 0, mailboxes: chosen });
  const proxy = await startTcpProxy({ path: path.join(postgres.socketDir, '.s.PGSQL.5432') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-outage-'));
  const nodes: Node[] = [];
  try {
    for (const mailbox of chosen)
      for (let i = 0; i < 5; i++)
        await fetch(`${sandbox.urls.control}/inject`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ mailbox, message: { from: 'n@example.org', subject: `m${i}`, text: 'x' } }),
        });
    const cutUrl = `postgresql://postgres@127.0.0.1:${proxy.port}/outage`;
    nodes.push(await startNode('o1', sandbox, cutUrl, dir, true, chosen));
    // the passwords are made by a CLI that this process waits for: it must not go through the proxy,
    // which runs in this process
    const seeded = path.join(dir, 'seed.json');
    fs.writeFileSync(seeded, fs.readFileSync(path.join(dir, 'o1.json'), 'utf8').replace(cutUrl, db.url));
    const passwords = new Map(chosen.map((m) => [m, bridgePassword(seeded, m)]));
    for (const name of ['o2', 'o3']) nodes.push(await startNode(name, sandbox, db.url, dir, false, chosen));
    const allOwned = async (by?: (owner: string) => boolean) => {
      for (;;) {
        const map = await owners(db).catch(() => new Map<string, string>());
        if (chosen.every((m) => map.has(m) && (!by || by(map.get(m) ?? '')))) return map;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const served = async (ports: number[], which: string[]) =>
      Promise.all(
        which.map(async (mailbox, i) => {
          while ((await selectInbox(ports[i % ports.length], mailbox, passwords.get(mailbox) ?? '')) < 5)
            await new Promise((r) => setTimeout(r, 20));
        }),
      );
    const ports = nodes.map((n) => n.imapPort);
    await allOwned();
    await served(ports, chosen);

    postgres.pause();
    await new Promise((r) => setTimeout(r, outageSeconds * 1000));
    // counted from the start command: PostgreSQL's own start is part of it
    const back = performance.now();
    postgres.resume();
    await allOwned();
    const ownedAfterOutage = seconds(back);
    await served(ports, chosen);
    const servedAfterOutage = seconds(back);

    // the hand-back after the outage settled: each node holds what it prefers
    await allOwned();
    const before = await owners(db);
    const cutOff = chosen.filter((m) => before.get(m) === 'o1');
    const cutAt = performance.now();
    proxy.cut();
    await allOwned((owner) => owner !== 'o1');
    const ownedAfterCut = seconds(cutAt);
    await served(
      nodes.slice(1).map((n) => n.imapPort),
      cutOff,
    );
    return {
      nodes: 3,
      mailboxes: chosen.length,
      leaseSeconds,
      outage: {
        seconds: outageSeconds,
        secondsUntilAllOwned: ownedAfterOutage,
        secondsUntilAllServed: servedAfterOutage,
        bound: `a look every ${leaseSeconds / 3} s, within one lease (${leaseSeconds} s)`,
      },
      partition: {
        mailboxesOfCutNode: cutOff.length,
        secondsUntilAllOwnedElsewhere: ownedAfterCut,
        secondsUntilAllServedElsewhere: seconds(cutAt),
        bound: `about 4/3 of the lease (${(leaseSeconds * 4) / 3} s)`,
      },
    };
  } finally {
    for (const n of nodes) n.child.kill('SIGKILL');
    await proxy.close();
    await sandbox.close();
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runClusterBench(): Promise<Record<string, unknown>> {
  return {
    singleNode: await round(1),
    threeNodes: await round(3),
    outageAndPartition: await outageAndPartition(),
    largeTakeover: await largeTakeover(),
  };
}
