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
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An fsync that finishes only when the test says so. */
function heldFsync() {
  const calls: Array<{ file: string; done(): void }> = [];
  const fsync = (file: string) => new Promise<void>((done) => calls.push({ file, done }));
  return { calls, fsync };
}

const write = (key: string) => db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)').run(key, 'v');
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

test('a client is told a commit is durable only after the WAL is flushed; commits made during a flush wait for the next one', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  const published: string[] = [];

  write('a');
  const first = durability.committed();
  durability.afterCommit(() => published.push('a'));
  expect(held.calls.map((c) => c.file)).toEqual([path.join(dir, 'mailbridge.db-wal')]);
  expect(await settled(first)).toBe(false);
  expect(published).toEqual([]);

  // written while the first flush runs: that flush may not cover it
  write('b');
  const second = durability.committed();
  durability.afterCommit(() => published.push('b'));
  held.calls[0].done();
  expect(await settled(first)).toBe(true);
  expect(published).toEqual(['a']);
  expect(await settled(second)).toBe(false);

  // one flush for every commit waiting
  expect(held.calls).toHaveLength(2);
  held.calls[1].done();
  expect(await settled(second)).toBe(true);
  expect(published).toEqual(['a', 'b']);
});

test('nothing written since the last flush: nothing to wait for, no flush', async () => {
  const held = heldFsync();
  const durability = new WalDurability(db, held.fsync);
  db.prepare('SELECT count(*) FROM kv').get();
  expect(await settled(durability.committed())).toBe(true);
  expect(held.calls).toHaveLength(0);
});

test('a failed flush fails the commits waiting for it, so no client is told OK', async () => {
  const durability = new WalDurability(db, () => Promise.reject(new Error('EIO')));
  write('a');
  await expect(durability.committed()).rejects.toThrow('EIO');
});

test('the state store of a state directory flushes its WAL before a write counts as committed', async () => {
  db.close();
  const store = MailStore.open(dir);
  db = store.db;
  store.folderState('alice@example.com', 'INBOX');
  await expect(store.committed()).resolves.toBeUndefined();
  expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: no fsync on the event loop
});
