import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, vendorFolder, startHarness } from '../support/bridge-harness';
import { type Postgres, startPostgres } from '../support/postgres';
import { type RawSession, rawSession } from '../support/raw-session';

/**
 * Client writes while the bridge's PostgreSQL is down: the vendor is not asked to change what
 * the bridge could not then store, so NO [UNAVAILABLE] means nothing changed anywhere; once
 * PostgreSQL is back the same commands go through. The outage here is shorter than the lease.
 */

let postgres: Postgres;
let h: Harness;
const secretKey = Buffer.alloc(32, 4).toString('hex');

beforeAll(async () => {
  postgres = await startPostgres();
  const db = await postgres.createDatabase('writes');
  h = await startHarness({
    sandbox: { messages: 5 },
    config: { state: { postgres: db.url, secretKey, node: 'writes-1', leaseSeconds: 600 } },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await postgres?.stop();
});

const starred = async () =>
  (await vendorFolder(h.sandbox, 'INBOX'))
    .filter((m) => m.is_starred)
    .map((m) => m.message_uid)
    .sort();
const inTrash = async () => (await vendorFolder(h.sandbox, 'Trash')).map((m) => m.message_uid).sort();

it('sends no vendor write while PostgreSQL is down, answers NO [UNAVAILABLE], and writes again once it is back', async () => {
  const session: RawSession = await rawSession(h.bridge.ports.imap, 'alice@sandbox.test', h.password);
  expect(await session.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  const [flaggedBefore, trashBefore] = [await starred(), await inTrash()];

  postgres.pause();
  try {
    const store = await session.run('UID STORE 1:* +FLAGS (\\Flagged)');
    expect(store).toMatch(/^t\d+ NO \[UNAVAILABLE\] The bridge's database is unreachable; nothing was changed/m);
    const move = await session.run('UID MOVE 1 Trash');
    expect(move).toMatch(/^t\d+ NO \[UNAVAILABLE\]/m);
    expect(`${store}${move}`).not.toMatch(/SERVERBUG/);
  } finally {
    postgres.resume();
  }
  // what the client was told NO about did not happen at the vendor
  expect(await starred()).toEqual(flaggedBefore);
  expect(await inTrash()).toEqual(trashBefore);

  expect(await session.run('UID STORE 1 +FLAGS (\\Flagged)')).toMatch(/^t\d+ OK/m);
  expect((await starred()).length).toBe(flaggedBefore.length + 1);
  session.close();
});

it('is not ready while PostgreSQL does not answer its looks, and says so in /metrics; /healthz stays about the process', async () => {
  const ops = (route: string) => `http://127.0.0.1:${h.bridge.ports.ops}${route}`;
  // the samples of the node's own metrics (prom-client's default ones are not this test's)
  const sample = async (name: string) => {
    const line = (await (await fetch(ops('/metrics'))).text()).split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  expect(await sample('mailbridge_store_up')).toBe(1);
  expect(await sample('mailbridge_leases_held')).toBe(1);
  expect(await sample('mailbridge_lease_changes_total{change="gained"}')).toBeGreaterThanOrEqual(1);
  expect(await sample('mailbridge_store_round_trip_seconds')).toBeGreaterThan(0);

  postgres.pause();
  try {
    // a reload makes the node look (renew its leases) now rather than at its next timed look
    await h.bridge.reload();
    const ready = await fetch(ops('/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, store: { up: false } });
    expect((await fetch(ops('/healthz'))).status).toBe(200);
    expect(await sample('mailbridge_store_up')).toBe(0);
  } finally {
    postgres.resume();
  }
  await h.bridge.reload();
  const ready = await fetch(ops('/readyz'));
  expect(await ready.json()).toMatchObject({ store: { up: true } });
  expect(await sample('mailbridge_store_up')).toBe(1);
});

it('answers OK for a MOVE the vendor made when PostgreSQL went down right after, and stores it once PostgreSQL is back', async () => {
  const session = await rawSession(h.bridge.ports.imap, 'alice@sandbox.test', h.password);
  expect(await session.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  const vendorBox = h.sandbox.store.mailbox('alice@sandbox.test');
  if (!vendorBox) throw new Error('no sandbox mailbox');
  const move = vendorBox.move.bind(vendorBox);
  // PostgreSQL stops while the vendor applies the move: the vendor took it, the store cannot
  vendorBox.move = (msg, folder) => {
    postgres.pause();
    move(msg, folder);
  };
  let answer: string;
  try {
    answer = await session.run('UID MOVE 2 Trash');
  } finally {
    vendorBox.move = move;
    postgres.resume();
  }
  expect(answer).toMatch(/^t\d+ OK/m);
  const moved = (await vendorFolder(h.sandbox, 'Trash')).length;
  // the next write stores what the outage left unsent; a new session sees the move
  expect(await session.run('UID STORE 3 +FLAGS (\\Seen)')).toMatch(/^t\d+ OK/m);
  session.close();
  await h.restart();
  const after = await rawSession(h.bridge.ports.imap, 'alice@sandbox.test', h.password);
  expect(await after.run('SELECT Trash')).toMatch(new RegExp(`^\\* ${moved} EXISTS`, 'm'));
  expect(await after.run('UID FETCH 2 (FLAGS)')).not.toMatch(/FETCH \(UID 2/);
  after.close();
});
