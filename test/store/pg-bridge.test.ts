import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/bridge-harness';
import { type Postgres, startPostgres } from '../support/postgres';

/** The daemon on PostgreSQL: what a client sees comes back from the database, not the state dir. */

let postgres: Postgres;
let h: Harness;
const secretKey = Buffer.alloc(32, 3).toString('hex');

beforeAll(async () => {
  postgres = await startPostgres();
  const db = await postgres.createDatabase('bridge');
  const url = db.url;
  h = await startHarness({ sandbox: { messages: 5 }, config: { state: { postgres: url, secretKey } } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await postgres?.stop();
});

it('keeps UIDs, UIDVALIDITY, flags and the bridge password in PostgreSQL across a restart on an empty state dir', async () => {
  let client = await h.client();
  const before = await client.mailboxOpen('INBOX');
  await client.messageFlagsAdd('2', ['\\Flagged', '$Project'], { uid: true });
  const listed = async () =>
    (await client.fetchAll('1:*', { uid: true, flags: true })).map((m) => [
      m.uid,
      // \Recent belongs to the session, not to the stored state
      [...(m.flags ?? [])].filter((f) => f !== '\\Recent').sort(),
    ]);
  const flags = await listed();
  await client.logout();

  const emptyStateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-pg-empty-'));
  await h.restart({ state: h.config.state, stateDir: emptyStateDir });
  client = await h.client();
  const after = await client.mailboxOpen('INBOX');
  expect(after.uidValidity).toBe(before.uidValidity);
  expect(after.uidNext).toBe(before.uidNext);
  expect(await listed()).toEqual(flags);
  expect(flags.find(([uid]) => uid === 2)?.[1]).toEqual(expect.arrayContaining(['$Project', '\\Flagged']));
  await client.logout();
  fs.rmSync(emptyStateDir, { recursive: true, force: true });
});

it('numbers a label folder deleted and created again afresh, in PostgreSQL too: a greater UIDVALIDITY, kept across a restart', async () => {
  let client = await h.client();
  await client.mailboxCreate('Labels/Again');
  await client.mailboxOpen('INBOX');
  await client.messageCopy('1:2', 'Labels/Again');
  const before = await client.mailboxOpen('Labels/Again');
  expect(before.exists).toBe(2);
  await client.mailboxOpen('INBOX');
  await client.mailboxDelete('Labels/Again');
  await client.mailboxCreate('Labels/Again');
  await client.messageCopy('3', 'Labels/Again');
  const after = await client.mailboxOpen('Labels/Again');
  expect(after.uidValidity).toBeGreaterThan(before.uidValidity);
  const uids = await client.search({ all: true }, { uid: true });
  expect(uids).toEqual([1]);
  await client.logout();

  const emptyStateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-pg-empty-'));
  await h.restart({ state: h.config.state, stateDir: emptyStateDir });
  client = await h.client();
  const reopened = await client.mailboxOpen('Labels/Again');
  expect(reopened.uidValidity).toBe(after.uidValidity);
  expect(await client.search({ all: true }, { uid: true })).toEqual(uids);
  await client.logout();
  fs.rmSync(emptyStateDir, { recursive: true, force: true });
});

it('numbers a label folder renamed onto a former name afresh, in PostgreSQL too, across a restart', async () => {
  let client = await h.client();
  await client.mailboxCreate('Labels/Former');
  await client.mailboxOpen('INBOX');
  await client.messageCopy('4', 'Labels/Former');
  const before = await client.mailboxOpen('Labels/Former');
  expect(before.exists).toBe(1);
  await client.mailboxOpen('INBOX');
  await client.mailboxRename('Labels/Former', 'Labels/Elder');
  await client.mailboxCreate('Labels/Newer');
  await client.messageCopy('5', 'Labels/Newer');
  await client.mailboxRename('Labels/Newer', 'Labels/Former');
  const after = await client.mailboxOpen('Labels/Former');
  expect(after.uidValidity).toBeGreaterThan(before.uidValidity);
  await client.logout();

  const emptyStateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-pg-empty-'));
  await h.restart({ state: h.config.state, stateDir: emptyStateDir });
  client = await h.client();
  expect((await client.mailboxOpen('Labels/Former')).uidValidity).toBe(after.uidValidity);
  expect(await client.search({ all: true }, { uid: true })).toEqual([1]);
  await client.logout();
  fs.rmSync(emptyStateDir, { recursive: true, force: true });
});
