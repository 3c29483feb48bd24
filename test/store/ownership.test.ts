import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { StateStore } from '../../src/store';
import { preferredNode } from '../../src/store/pg/ownership';
import { openPgState } from '../../src/store/pg/pg-state';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * Mailbox ownership on PostgreSQL: one node per account, the epoch fencing a stale owner's
 * writes, the new owner continuing from the stored state. A node "dies" here by having its
 * lease and presence run out in the database (the SQL a dead node's silence leads to), so no
 * test waits for a clock.
 */

let postgres: Postgres;
let connection: { host: string; user: string; database: string };
const secretKey = Buffer.alloc(32, 5).toString('base64');
const leaseMs = 60_000;

beforeAll(async () => {
  postgres = await startPostgres();
  connection = await postgres.createDatabase('owners');
}, 120_000);
afterAll(async () => {
  await postgres.stop();
});

interface Node {
  name: string;
  state: StateStore;
  serving: Set<string>;
}

async function startNode(
  name: string,
  wanted: string[],
  onGained: (mailbox: string) => void = () => undefined,
  ttlMs = leaseMs,
): Promise<Node> {
  const state = await openPgState({
    connection,
    secretKey,
    node: { name, leaseMs: ttlMs, onError: (err) => expect.unreachable(err.message) },
  });
  const serving = new Set<string>();
  await state.ownership.start(() => wanted, {
    gained: (m) => {
      serving.add(m);
      onGained(m);
    },
    lost: async (m) => {
      serving.delete(m);
    },
  });
  return { name, state, serving };
}

/** What a dead node leaves behind once its lease time has passed. */
async function expire(node: string): Promise<void> {
  const client = new pg.Client(connection);
  await client.connect();
  await client.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE owner = $1", [node]);
  await client.query("UPDATE nodes SET expires_at = now() - interval '1 second' WHERE node = $1", [node]);
  await client.end();
}

async function leaseOf(account: string): Promise<{ owner: string; epoch: number }> {
  const client = new pg.Client(connection);
  await client.connect();
  const { rows } = await client.query('SELECT owner, epoch::int FROM leases WHERE account = $1', [account]);
  await client.end();
  return rows[0];
}

it('spreads accounts over the nodes alive, each account on exactly one node', async () => {
  const accounts = Array.from({ length: 30 }, (_, i) => `user${i}@example.com`);
  const nodes = ['n1', 'n2', 'n3'];
  const share = nodes.map((n) => accounts.filter((a) => preferredNode(nodes, a) === n).length);
  expect(share.every((count) => count > 0)).toBe(true);
  expect(share.reduce((a, b) => a + b)).toBe(accounts.length);
  // a node leaving moves only its own accounts
  for (const a of accounts)
    if (preferredNode(nodes, a) !== 'n3') expect(preferredNode(['n1', 'n2'], a)).toBe(preferredNode(nodes, a));
});

it('refuses the writes of a stale owner; the new owner continues with the same UIDs and UIDVALIDITY', async () => {
  const account = 'fenced@example.com';
  const a = await startNode('node-a', [account]);
  expect(a.serving).toEqual(new Set([account]));
  a.state.mail.assignUids(account, 'INBOX', ['m1', 'm2']);
  await a.state.committed();
  const validity = a.state.mail.folderState(account, 'INBOX').uidValidity;
  expect(await leaseOf(account)).toEqual({ owner: 'node-a', epoch: 1 });

  // node-a stalls (say a long GC pause) until its lease ran out; node-b takes the account
  await expire('node-a');
  const b = await startNode('node-b', [account]);
  expect(b.serving).toEqual(new Set([account]));
  expect(await leaseOf(account)).toEqual({ owner: 'node-b', epoch: 2 });
  expect(b.state.mail.listMessages(account, 'INBOX').map((r) => [r.uid, r.messageUid])).toEqual([
    [1, 'm1'],
    [2, 'm2'],
  ]);
  expect(b.state.mail.folderState(account, 'INBOX').uidValidity).toBe(validity);

  // node-a wakes up and writes on: refused, and it stops serving the account
  a.state.mail.assignUids(account, 'INBOX', ['stale']);
  await expect(a.state.committed()).rejects.toThrow(/no longer owns fenced@example.com/);
  await a.state.ownership.review();
  expect(a.serving.size).toBe(0);

  b.state.mail.assignUids(account, 'INBOX', ['m3']);
  await b.state.committed();
  for (const n of [a, b]) {
    await n.state.ownership.stop();
    await n.state.close();
  }
  // a cleanly stopped node gives its accounts up at once: the next node needs no expiry
  const c = await startNode('node-c', [account]);
  expect(c.serving).toEqual(new Set([account]));
  expect(c.state.mail.listMessages(account, 'INBOX').map((r) => [r.uid, r.messageUid])).toEqual([
    [1, 'm1'],
    [2, 'm2'],
    [3, 'm3'],
  ]);
  expect(await leaseOf(account)).toEqual({ owner: 'node-c', epoch: 3 });
  await c.state.ownership.stop();
  await c.state.close();
});

it('hands an account over to a node that joins and prefers it, cleanly', async () => {
  const accounts = Array.from({ length: 12 }, (_, i) => `join${i}@example.com`);
  const first = await startNode('join-1', accounts);
  expect(first.serving.size).toBe(accounts.length);
  const second = await startNode('join-2', accounts);
  // join-1 sees join-2 at its next look and lets go of what join-2 prefers
  await first.state.ownership.review();
  await second.state.ownership.review();
  const nodes = ['join-1', 'join-2'];
  expect([...second.serving].sort()).toEqual(accounts.filter((a) => preferredNode(nodes, a) === 'join-2').sort());
  expect([...first.serving].sort()).toEqual(accounts.filter((a) => preferredNode(nodes, a) === 'join-1').sort());
  for (const n of [first, second]) {
    await n.state.ownership.stop();
    await n.state.close();
  }
});

it('wakes the other nodes with NOTIFY when a node gives its accounts up, before their next look', async () => {
  const account = 'woken@example.com';
  // looks every 200 s: only the wake-up can make the second node take the account during this test
  const slow = 600_000;
  const first = await startNode('wake-1', [account], undefined, slow);
  let taken: (mailbox: string) => void = () => undefined;
  const gained = new Promise<string>((resolve) => {
    taken = resolve;
  });
  const second = await startNode('wake-2', [account], (m) => taken(m), slow);
  // the first node took it alone; the second finds its lease live
  expect([first.serving.has(account), second.serving.has(account)]).toEqual([true, false]);
  await first.state.ownership.stop();
  await first.state.close();
  expect(await gained).toBe(account);
  await second.state.ownership.stop();
  await second.state.close();
});

it('moves a dead owner’s account at the survivor’s next look: within a third of the lease after it ran out', async () => {
  const account = 'bound@example.com';
  // the looks run on fake intervals; PostgreSQL and its clock stay real
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  try {
    const dead = await startNode('bound-dead', [account]);
    expect(dead.serving).toEqual(new Set([account]));
    // as a killed process: no more looks, no renewal, no release
    await dead.state.close();
    let taken: (mailbox: string) => void = () => undefined;
    const gained = new Promise<string>((resolve) => {
      taken = resolve;
    });
    const survivor = await startNode('bound-survivor', [account], (m) => taken(m));
    expect(survivor.serving.size).toBe(0);

    await expire('bound-dead');
    await vi.advanceTimersByTimeAsync(leaseMs / 3 - 1);
    expect(survivor.serving.size).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await gained).toBe(account);
    expect(await leaseOf(account)).toEqual({ owner: 'bound-survivor', epoch: 2 });

    await survivor.state.ownership.stop();
    await survivor.state.close();
  } finally {
    vi.useRealTimers();
  }
});
