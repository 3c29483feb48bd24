import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileSummary, describeMessage, describeRecord } from '../../src/mime';
import { MailStore, migrations, openDatabase, schemaVersion } from '../../src/store';
import { databaseFileName } from '../../src/store/db';
import { richMessage } from '../mime/fixtures';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let dir: string;
let store: MailStore;
let n = 0;
beforeEach(() => {
  dir = path.join(root, `s${n++}`);
  store = MailStore.open(dir);
});
afterEach(() => {
  try {
    store.close();
  } catch {
    // already closed by the test
  }
});

const A = 'me@example.com';

describe('MailStore', () => {
  it('creates an owner-only WAL database with a schema version', () => {
    const file = path.join(dir, databaseFileName);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(store.db)).toBe(migrations.length);
    store.close();
    const again = openDatabase(dir); // migrations are not re-run
    expect(schemaVersion(again)).toBe(migrations.length);
    again.close();
  });

  it('makes a new file with 16 KiB pages and keeps the page size of a file made before', () => {
    expect(store.db.pragma('page_size', { simple: true })).toBe(16_384);
    const old = path.join(root, `old${n++}`);
    fs.mkdirSync(old, { mode: 0o700 });
    const made = new BetterSqlite3(path.join(old, databaseFileName));
    made.pragma('page_size = 4096');
    made.pragma('journal_mode = WAL');
    made.close();
    const reopened = MailStore.open(old);
    expect(reopened.db.pragma('page_size', { simple: true })).toBe(4096);
    expect(reopened.assignUids(A, 'INBOX', ['a']).map((r) => r.uid)).toEqual([1]);
    reopened.close();
  });

  it('keeps UIDs and UIDVALIDITY across close/reopen; new messages go after existing ones', () => {
    const first = store.assignUids(A, 'INBOX', [
      'a',
      'b',
      { messageUid: 'c', flags: ['\\Seen'], idate: new Date('2024-01-02T03:04:05Z') },
    ]);
    expect(first.map((r) => [r.messageUid, r.uid])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const before = store.folderState(A, 'INBOX');
    store.close();

    store = MailStore.open(dir);
    const after = store.folderState(A, 'INBOX');
    expect(after.uidValidity).toBe(before.uidValidity);
    expect(after).toMatchObject({ uidNext: 4, count: 3, unseen: 2 });
    expect(store.assignUids(A, 'INBOX', ['a', 'b', 'c'])).toEqual([]); // same list: no-op
    expect(store.folderState(A, 'INBOX').highestModseq).toBe(after.highestModseq);

    const more = store.assignUids(A, 'INBOX', ['b', 'd', 'a', 'e', 'd']);
    expect(more.map((r) => [r.messageUid, r.uid])).toEqual([
      ['d', 4],
      ['e', 5],
    ]);
    const rows = store.listMessages(A, 'INBOX');
    expect(rows.map((r) => `${r.uid}:${r.messageUid}`)).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e']);
    expect(rows[2]).toMatchObject({ flags: ['\\Seen'], idate: Date.parse('2024-01-02T03:04:05Z') });
  });

  it('gives each folder its own UID space', () => {
    store.assignUids(A, 'INBOX', ['a', 'b']);
    expect(store.assignUids(A, 'Archive', ['b', 'a']).map((r) => r.uid)).toEqual([1, 2]);
    expect(store.assignUids('other@example.com', 'INBOX', ['a']).map((r) => r.uid)).toEqual([1]);
    expect(store.folderState(A, 'Archive')).toMatchObject({ count: 2, uidNext: 3 });
  });

  it('counts a folder the same from its rows in memory as from the database, after every change', () => {
    const fresh = () => {
      const other = new MailStore(store.db); // no rows in memory: counted by SQLite
      return other.folderState(A, 'INBOX');
    };
    const [a, b] = store.assignUids(A, 'INBOX', ['a', 'b', { messageUid: 'c', flags: ['\\Seen'], idate: new Date(0) }]);
    store.listMessages(A, 'INBOX');
    expect(store.folderState(A, 'INBOX')).toEqual(fresh());
    expect(store.folderState(A, 'INBOX')).toMatchObject({ count: 3, unseen: 2 });
    store.setFlags(A, 'INBOX', [a.uid, b.uid], ['\\SEEN']);
    expect(store.folderState(A, 'INBOX')).toMatchObject({ count: 3, unseen: 0 });
    store.setFlags(A, 'INBOX', b.uid, []);
    store.expunge(A, 'INBOX', ['a']);
    store.assignUids(A, 'INBOX', ['d']);
    expect(store.folderState(A, 'INBOX')).toMatchObject({ count: 3, unseen: 2 });
    expect(store.folderState(A, 'INBOX')).toEqual(fresh());
  });

  it('hands every reader one folder snapshot until a change makes a new one; old ones stay as they were', () => {
    store.assignUids(A, 'INBOX', ['a', 'b']);
    const first = store.folderSnapshot(A, 'INBOX');
    expect(store.folderSnapshot(A, 'INBOX')).toBe(first);
    expect(store.listMessages(A, 'INBOX')).not.toBe(first);
    expect(store.listMessages(A, 'INBOX')).toEqual(first);
    store.setFlags(A, 'INBOX', 1, ['\\Seen']);
    const flagged = store.folderSnapshot(A, 'INBOX');
    expect(flagged).not.toBe(first);
    store.assignUids(A, 'INBOX', ['c']);
    const added = store.folderSnapshot(A, 'INBOX');
    store.expunge(A, 'INBOX', ['b']);
    expect(store.folderSnapshot(A, 'INBOX').map((r) => r.uid)).toEqual([1, 3]);
    expect(first.map((r) => [r.uid, r.flags])).toEqual([
      [1, []],
      [2, []],
    ]);
    expect(flagged.map((r) => [r.uid, r.flags])).toEqual([
      [1, ['\\Seen']],
      [2, []],
    ]);
    expect(added.map((r) => r.uid)).toEqual([1, 2, 3]);
  });

  it('bumps MODSEQ on flag changes and expunges, keeping tombstones', () => {
    const [a, b, c] = store.assignUids(A, 'INBOX', ['a', 'b', 'c']);
    const snapshot = store.listMessages(A, 'INBOX'); // from here on the folder's rows are cached in memory
    const m1 = store.setFlags(A, 'INBOX', b.uid, ['\\Seen', '$Important', 'Work']);
    expect(m1).toBeGreaterThan(b.modseq);
    const m2 = store.setFlags(A, 'INBOX', [a.uid, c.uid], ['\\Flagged']);
    expect(m2).toBe(m1 + 1);
    expect(store.setFlags(A, 'INBOX', 99, ['\\Seen'])).toBe(m2); // nothing changed
    const rows = store.getByUids(A, 'INBOX', [c.uid, b.uid, 42]);
    expect(rows.map((r) => [r.uid, r.flags, r.modseq])).toEqual([
      [2, ['\\Seen', '$Important', 'Work'], m1],
      [3, ['\\Flagged'], m2],
    ]);
    expect(store.folderState(A, 'INBOX')).toMatchObject({ highestModseq: m2, unseen: 2 });

    const removed = store.expunge(A, 'INBOX', ['c', 'a', 'zzz']);
    expect(removed.map((r) => [r.uid, r.messageUid])).toEqual([
      [1, 'a'],
      [3, 'c'],
    ]);
    expect(removed[0].modseq).toBe(m2 + 1);
    expect(store.listMessages(A, 'INBOX').map((r) => r.uid)).toEqual([2]);
    expect(store.expunge(A, 'INBOX', ['a'])).toEqual([]);
    // an expunged message that comes back is a new message with a new UID
    expect(store.assignUids(A, 'INBOX', ['a'])[0].uid).toBe(4);
    expect(store.rowsByMessageUid(A, 'INBOX', ['a', 'b']).map((r) => r.uid)).toEqual([2, 4]);
    // the in-memory rows match a second connection reading the file, and old snapshots did not change
    const fresh = MailStore.open(dir);
    expect(store.listMessages(A, 'INBOX')).toEqual(fresh.listMessages(A, 'INBOX'));
    expect(store.getByUids(A, 'INBOX', [2, 4])).toEqual(fresh.getByUids(A, 'INBOX', [2, 4]));
    fresh.close();
    expect(snapshot.map((r) => [r.uid, r.flags])).toEqual([
      [1, []],
      [2, []],
      [3, []],
    ]);
  });

  it('answers which UIDs vanished since a MODSEQ, and says so when its tombstones no longer reach back', () => {
    store.tombstonesKept = 10;
    const ids = Array.from({ length: 30 }, (_, i) => `m${i}`);
    store.assignUids(A, 'INBOX', ids);
    const before = store.folderState(A, 'INBOX').highestModseq;
    // ten expunges of one message each: all kept (the limit is passed by a tenth before pruning)
    const first = ids.slice(0, 10).map((id) => store.expunge(A, 'INBOX', [id])[0]);
    expect(store.vanishedSince(A, 'INBOX', before)).toEqual({ complete: true, uids: first.map((r) => r.uid) });
    expect(store.vanishedSince(A, 'INBOX', first[4].modseq)).toEqual({
      complete: true,
      uids: first.slice(5).map((r) => r.uid),
    });
    // two more expunges of one message each pass the limit: the oldest two are dropped
    const more = ids.slice(10, 12).map((id) => store.expunge(A, 'INBOX', [id])[0]);
    const kept = [...first.slice(2), ...more].map((r) => r.uid);
    expect(store.vanishedSince(A, 'INBOX', first[1].modseq)).toEqual({ complete: true, uids: kept });
    expect(store.vanishedSince(A, 'INBOX', first[0].modseq)).toMatchObject({ complete: false });
    expect(store.vanishedSince(A, 'INBOX', before)).toMatchObject({ complete: false });
    // another folder keeps its own
    store.assignUids(A, 'Archive', ['x']);
    store.expunge(A, 'Archive', ['x']);
    expect(store.vanishedSince(A, 'Archive', 0)).toEqual({ complete: true, uids: [1] });
    // and after a restart the same
    const fresh = MailStore.open(dir);
    expect(fresh.vanishedSince(A, 'INBOX', first[0].modseq)).toMatchObject({ complete: false });
    expect(fresh.vanishedSince(A, 'INBOX', first[1].modseq)).toEqual({ complete: true, uids: kept });
    fresh.close();
  });

  it('stores metadata per account/message, shares it between folders, and puts its size on the rows', () => {
    const msg = richMessage();
    const description = describeMessage(msg);
    store.assignUids(A, 'Archive', ['before', msg.id]);
    store.assignUids('other@example.com', 'INBOX', [msg.id]);
    expect(store.listMessages(A, 'Archive').map((r) => r.size)).toEqual([0, 0]); // its rows kept in memory
    store.putMetadataRecords(A, [describeRecord(msg)]);
    store.assignUids(A, 'INBOX', [msg.id]);
    expect(store.listMessages(A, 'INBOX')[0].size).toBe(description.size);
    expect(store.listMessages(A, 'Archive').map((r) => r.size)).toEqual([0, description.size]);
    expect(store.listMessages('other@example.com', 'INBOX')[0].size).toBe(0); // another account's message
    store.close();

    store = MailStore.open(dir);
    const ids = [msg.id, 'unknown'];
    expect([...store.getMessages(A, ids)]).toEqual([[msg.id, msg]]);
    expect([...store.getHeaders(A, ids)]).toEqual([[msg.id, description.mimeTree.header]]);
    expect([...store.getSummaries(A, ids)]).toEqual([
      [msg.id, { size: description.size, compiled: compileSummary(description.envelope, description.bodystructure) }],
    ]);
    expect(store.getSummaries('other@example.com', [msg.id]).size).toBe(0);

    store.expunge(A, 'INBOX', [msg.id]);
    expect(store.pruneMetadata(A)).toBe(0); // still in Archive
    store.expunge(A, 'Archive', [msg.id]);
    expect(store.pruneMetadata(A)).toBe(1);
  });

  it('keeps a cached folder the rows the database holds after numbering: sizes given or stored, flags, dates', () => {
    const msg = richMessage();
    store.putMetadataRecords(A, [describeRecord(msg)]);
    store.listMessages(A, 'INBOX'); // the folder's rows are kept in memory from here on
    store.assignUids(A, 'INBOX', [
      { messageUid: 'given', flags: ['\\Seen', 'work'], idate: new Date(1_700_000_000_000), size: 1234 },
      msg.id,
      { messageUid: 'unknown', flags: [] },
      'given', // known: keeps its UID
    ]);
    const cached = store.listMessages(A, 'INBOX');
    expect(cached.map((r) => [r.uid, r.messageUid, r.size])).toEqual([
      [1, 'given', 1234],
      [2, msg.id, describeRecord(msg).size],
      [3, 'unknown', 0],
    ]);
    expect(cached).toEqual(new MailStore(store.db).listMessages(A, 'INBOX')); // read from the database
    expect(store.folderState(A, 'INBOX')).toMatchObject({ uidNext: 4, count: 3, unseen: 2 });
  });

  it("puts a message's size on rows numbered before it was stored, in a cached folder without reading it again", () => {
    const msg = richMessage();
    store.assignUids(A, 'INBOX', ['before', msg.id]);
    const before = store.folderSnapshot(A, 'INBOX'); // the folder's rows are kept in memory from here on
    expect(before.map((r) => r.size)).toEqual([0, 0]);
    store.putMetadataRecords(A, [describeRecord(msg)]);
    const after = store.folderSnapshot(A, 'INBOX');
    expect(after.map((r) => r.size)).toEqual([0, describeRecord(msg).size]);
    expect(before.map((r) => r.size)).toEqual([0, 0]); // a list handed out stays as it was
    expect(after[0]).toBe(before[0]); // the other rows are the cached ones, not read again
    expect(after).toEqual(new MailStore(store.db).listMessages(A, 'INBOX')); // as the database holds them
  });

  it('keeps 100,000 messages of one folder: UIDs, a no-op re-sync, listing after reopen, counts, lookups', () => {
    // how fast these run is measured by `npm run bench` (bench/scale.ts), not here
    const ids = Array.from({ length: 100_000 }, (_, i) => ({
      messageUid: `m${i}`,
      flags: i % 3 ? ['\\Seen'] : [],
      idate: new Date(1_700_000_000_000 + i),
    }));
    expect(store.assignUids(A, 'Big', ids)).toHaveLength(100_000);
    expect(store.assignUids(A, 'Big', ids)).toHaveLength(0);
    store.close();
    store = MailStore.open(dir);
    const rows = store.listMessages(A, 'Big');
    expect(store.listMessages(A, 'Big')).toEqual(rows);
    expect(rows).toHaveLength(100_000);
    expect(rows[0]).toMatchObject({ uid: 1, messageUid: 'm0', flags: [] });
    expect(rows[99_999]).toMatchObject({ uid: 100_000, messageUid: 'm99999', flags: [] });
    expect(rows[1]).toMatchObject({ uid: 2, messageUid: 'm1', flags: ['\\Seen'] });
    // every third message (i % 3 === 0) is unseen: 0, 3, ..., 99,999
    expect(store.folderState(A, 'Big')).toMatchObject({ count: 100_000, unseen: 33_334, uidNext: 100_001 });
    const found = store.getByUids(A, 'Big', [1, 50_000, 100_000, 100_001]);
    expect(found.map((r) => r.messageUid)).toEqual(['m0', 'm49999', 'm99999']);
    expect(
      store.getByUids(
        A,
        'Big',
        rows.map((r) => r.uid),
      ),
    ).toHaveLength(100_000);
  });
});
