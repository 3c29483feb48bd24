import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StateStore } from '../../src/store';
import { type PgOwnership, preferredNode } from '../../src/store/pg/ownership';
import { openPgState } from '../../src/store/pg/pg-state';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * A node through a PostgreSQL outage, in process: the server is stopped with a write in flight
 * and started again. The node's lease clock is a number the test moves, and the looks run when
 * the test calls them, so what happens depends on the order of events, not on how fast they are.
 */

let postgres: Postgres;
let connection: { host: string; user: string; database: string };
const secretKey = Buffer.alloc(32, 9).toString('base64');
const leaseMs = 60_000;

beforeAll(async () => {
  postgres = await startPostgres();
  connection = await postgres.createDatabase('outage');
}, 120_000);
afterAll(async () => {
  await postgres.stop();
});

interface Node {
  state: StateStore;
  serving: Set<string>;
  errors: string[];
  /** What the node reported, in order: lease changes and the store lost or back. */
  events: string[];
  clock: { t: number };
}

async function startNode(name: string, wanted: string[], stopping?: (mailbox: string) => Promise<void>): Promise<Node> {
  const clock = { t: 0 };
  const errors: string[] = [];
  const events: string[] = [];
  const state = await openPgState({
    connection,
    secretKey,
    node: {
      name,
      leaseMs,
      now: () => clock.t,
      onError: (err) => errors.push(err.message),
      observer: {
        lease: (mailbox, change) => events.push(`${change} ${mailbox}`),
        store: (up) => events.push(up ? 'store back' : 'store lost'),
      },
    },
  });
  const serving = new Set<string>();
  await state.ownership.start(() => wanted, {
    gained: (m) => serving.add(m),
    lost: async (m) => {
      serving.delete(m);
      await stopping?.(m);
    },
  });
  return { state, serving, errors, events, clock };
}

it('serves every mailbox again once PostgreSQL is back, though a write of one was in flight when its lease ran out', async () => {
  const [alice, dave, erin] = ['alice@example.com', 'dave@example.com', 'erin@example.com'];
  const node = await startNode('outage-1', [alice, dave, erin]);
  expect(node.serving).toEqual(new Set([alice, dave, erin]));
  for (const m of [alice, dave, erin]) node.state.mail.assignUids(m, 'INBOX', ['m1']);
  await node.state.committed();

  postgres.pause();
  try {
    // dave's write is in flight as the server goes: it is not stored
    node.state.mail.assignUids(dave, 'INBOX', ['in-flight']);
    await expect(node.state.mail.committed(dave)).rejects.toThrow();
    // the outage outlasts the lease on the node's own clock: it stops serving all three
    node.clock.t += leaseMs;
    await node.state.ownership.review();
    expect(node.serving.size).toBe(0);
    expect(node.state.node?.storeUp()).toBe(false);
    // looking again reports nothing new
    await node.state.ownership.review();
  } finally {
    postgres.resume();
  }

  await node.state.ownership.review();
  expect(node.serving).toEqual(new Set([alice, dave, erin]));
  expect(node.state.node?.storeUp()).toBe(true);
  expect(node.state.node?.leasesHeld()).toBe(3);
  expect(node.events).toEqual([
    ...[alice, dave, erin].map((m) => `gained ${m}`),
    'store lost',
    ...[alice, dave, erin].map((m) => `lost ${m}`),
    'store back',
    ...[alice, dave, erin].map((m) => `gained ${m}`),
  ]);
  expect(Object.fromEntries(node.state.node?.leaseChanges() ?? [])).toEqual({ gained: 6, lost: 3 });
  // no write of any of them is refused for dave's lost one, now or at the next change
  for (const m of [alice, erin]) await node.state.mail.committed(m);
  await node.state.committed();
  node.state.mail.assignUids(alice, 'INBOX', ['m2']);
  await node.state.mail.committed(alice);
  // the write that was never stored is not there: dave's state is PostgreSQL's
  expect(node.state.mail.listMessages(dave, 'INBOX').map((r) => r.messageUid)).toEqual(['m1']);
  expect(node.errors).toEqual([]);
  await node.state.ownership.stop();
  await node.state.close();
});

it('stores a write that failed during a short outage once PostgreSQL is back, the lease still held', async () => {
  const frank = 'frank@example.com';
  const node = await startNode('outage-2', [frank]);
  postgres.pause();
  try {
    node.state.mail.assignUids(frank, 'INBOX', ['kept']);
    await expect(node.state.mail.committed(frank)).rejects.toThrow();
    // a third of the lease has passed: the next renewal is due before it could run out
    node.clock.t += leaseMs / 3 - 1;
    await node.state.ownership.review();
    expect(node.serving).toEqual(new Set([frank]));
  } finally {
    postgres.resume();
  }
  await node.state.ownership.review();
  await node.state.mail.committed(frank);
  await node.state.ownership.stop();
  await node.state.close();
  const again = await startNode('outage-3', [frank]);
  expect(again.state.mail.listMessages(frank, 'INBOX').map((r) => r.messageUid)).toEqual(['kept']);
  await again.state.ownership.stop();
  await again.state.close();
});

it('refuses only the writes of a mailbox another node took; the node’s other mailboxes go on storing', async () => {
  const [gina, hank] = ['gina@example.com', 'hank@example.com'];
  const node = await startNode('fence-1', [gina, hank]);
  // hank's lease and the node's presence run out in PostgreSQL (a stalled node); another node takes hank
  const client = new pg.Client(connection);
  await client.connect();
  await client.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE account = $1", [hank]);
  await client.query("UPDATE nodes SET expires_at = now() - interval '1 second' WHERE node = 'fence-1'");
  await client.end();
  const other = await startNode('fence-2', [hank]);
  expect(other.serving).toEqual(new Set([hank]));

  node.state.mail.assignUids(hank, 'INBOX', ['stale']);
  node.state.mail.assignUids(gina, 'INBOX', ['g1']);
  await expect(node.state.mail.committed(hank)).rejects.toThrow(/no longer owns hank@example.com/);
  // gina's write went in the same transaction and is stored; nothing stale is reported for her
  await node.state.mail.committed(gina);
  await node.state.committed();
  node.state.mail.assignUids(gina, 'INBOX', ['g2']);
  await node.state.mail.committed(gina);
  for (const n of [node, other]) {
    await n.state.ownership.stop();
    await n.state.close();
  }
});

it('stops serving a mailbox while its lease has a third left, when PostgreSQL does not confirm it', async () => {
  const ivan = 'ivan@example.com';
  const node = await startNode('margin-1', [ivan]);
  postgres.pause();
  try {
    node.clock.t += (leaseMs * 2) / 3 - 1;
    await node.state.ownership.review();
    expect(node.serving).toEqual(new Set([ivan]));
    node.clock.t += 1;
    await node.state.ownership.review();
    expect(node.serving.size).toBe(0);
  } finally {
    postgres.resume();
  }
  expect(node.events).toEqual([`gained ${ivan}`, 'store lost', `lost ${ivan}`]);
  await node.state.ownership.stop();
  await node.state.close();
});

it('keeps its leases renewed through a look that takes longer than a lease would last unrenewed', async () => {
  const [jack, kate] = ['jack@example.com', 'kate@example.com'];
  // jack prefers the first node, kate a second one that joins: the first hands kate over
  const names = Array.from({ length: 100 }, (_, i) => `long-${i}`);
  const [first, second] =
    names
      .flatMap((a) => names.map((b) => [a, b]))
      .find(([a, b]) => a !== b && preferredNode([a, b], jack) === a && preferredNode([a, b], kate) === b) ?? [];
  // handing kate over waits until her sessions are gone: held here, the look does not end
  let letGo: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const node = await startNode(first, [jack, kate], async (m) => {
    if (m === kate) await held;
  });
  const other = await startNode(second, [kate]);
  const look = node.state.ownership.review();
  for (let i = 0; i < 100 && node.serving.has(kate); i++) await new Promise((r) => setTimeout(r, 10));
  expect(node.serving).toEqual(new Set([jack]));

  // the look still waits; the node's own upkeep renews jack's lease when one is due
  node.clock.t += leaseMs / 3;
  await (node.state.ownership as PgOwnership).upkeep();
  node.clock.t += leaseMs / 3 + 1;
  await (node.state.ownership as PgOwnership).upkeep();
  expect(node.serving).toEqual(new Set([jack]));
  expect(node.events).not.toContain(`lost ${jack}`);

  letGo();
  await look;
  expect(node.errors).toEqual([]);
  for (const n of [node, other]) {
    await n.state.ownership.stop();
    await n.state.close();
  }
});
