import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { type Database, openDatabase } from '../../src/store/db';
import { MailStore } from '../../src/store/mail-store';
import { WalDurability } from '../../src/store/wal-durability';

let dir: string;
let db: Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-wal-'));
  db = openDatabase(dir);
});
afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An fsync that finishes (or fails) only when the test says so. */
function heldFsync() {
  const calls: Array<{ file: string; done(): void; fail(err: Error): void }> = [];
  const fsync = (file: string) => new Promise<void>((done, fail) => calls.push({ file, done, fail }));
  return { calls, fsync };
}

const write = (key: string) => db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)').run(key, 'v');
/** The end of this turn of the event loop: what setImmediate callbacks scheduled so far have run. */
const turn = () => new Promise<void>((r) => setImmediate(r));

test('changes are released in commit order, together with the OKs waiting for them, once an fsync that began after them ends', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  const seen: string[] = [];
  const ok = (name: string) => {
    durability.committed().then(
      () => seen.push(name),
      () => seen.push(`${name} failed`),
    );
  };

  write('a');
  durability.afterCommit(() => seen.push('publish a'));
  ok('ok a');
  write('b');
  durability.afterCommit(() => seen.push('publish b'));
  await turn();
  // one fsync for both commits, and nothing is told before it ends
  expect(held.calls.map((c) => c.file)).toEqual([path.join(dir, 'mailbridge.db-wal')]);
  expect(seen).toEqual([]);

  // committed while that fsync runs: it may not cover these
  write('c');
  durability.afterCommit(() => seen.push('publish c'));
  ok('ok c');
  await turn();
  expect(held.calls).toHaveLength(1);

  held.calls[0].done();
  await turn();
  // publications run in commit order; a client's OK is a promise, told on the same turn
  expect(seen).toEqual(['publish a', 'publish b', 'ok a']);

  // the next fsync is late: c waits for it, however many turns pass
  await turn();
  expect(held.calls).toHaveLength(2);
  for (let i = 0; i < 5; i++) await turn();
  expect(seen).toEqual(['publish a', 'publish b', 'ok a']);
  held.calls[1].done();
  await turn();
  expect(seen).toEqual(['publish a', 'publish b', 'ok a', 'publish c', 'ok c']);
});

test("a command's OK comes in the same turn as the publication of what it changed: no session's listener runs between them", async () => {
  // a thread-pool job ends on a later turn of the event loop than the one that started it
  const fsync = () => new Promise<void>((done) => setImmediate(() => setImmediate(done)));
  const durability = new WalDurability(db, fsync);
  const seen: string[] = [];

  // a release: the EXPUNGE is applied and published after commit, then the held bytes are dropped
  write('expunge');
  durability.afterCommit(() => {
    seen.push('publish');
    // the journal wakes the sessions' listeners on the next turn (change-journal.ts)
    setImmediate(() => seen.push('listener'));
  });
  write('drop bytes');
  await durability.committed();
  seen.push('ok');
  for (let i = 0; i < 3; i++) await turn();
  expect(seen).toEqual(['publish', 'ok', 'listener']);
});

test('a failed fsync fails the OKs waiting for it; the changes stay unpublished until a later fsync succeeds', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  const seen: string[] = [];

  write('a');
  durability.afterCommit(() => seen.push('publish a'));
  const first = durability.committed();
  await turn();
  held.calls[0].fail(new Error('EIO'));
  await expect(first).rejects.toThrow('EIO');
  expect(seen).toEqual([]);

  write('b');
  durability.afterCommit(() => seen.push('publish b'));
  const second = durability.committed();
  await turn();
  expect(held.calls).toHaveLength(2);
  held.calls[1].done();
  await expect(second).resolves.toBeUndefined();
  expect(seen).toEqual(['publish a', 'publish b']);
});

test('nothing written since the last fsync: nothing to wait for, no fsync', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  const seen: string[] = [];
  db.prepare('SELECT count(*) FROM kv').get();
  durability.afterCommit(() => seen.push('publish'));
  expect(seen).toEqual(['publish']);
  await expect(durability.committed()).resolves.toBeUndefined();
  await turn();
  expect(held.calls).toHaveLength(0);
});

test('closing the database releases what waits: closing checkpoints the WAL into the database file and syncs it', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  const seen: string[] = [];
  write('a');
  durability.afterCommit(() => seen.push('publish a'));
  const ok = durability.committed();
  db.close();
  await expect(ok).resolves.toBeUndefined();
  expect(seen).toEqual(['publish a']);
  expect(held.calls).toHaveLength(0);
});

test('the state store of a state directory commits without an fsync and flushes its WAL before a write counts as committed', async () => {
  db.close();
  const store = MailStore.open(dir);
  db = store.db;
  store.folderState('alice@example.com', 'INBOX');
  await expect(store.committed()).resolves.toBeUndefined();
  expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: no fsync on the event loop
});
