import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { describeRecord } from '../../src/mime';
import { MailStore, migrations } from '../../src/store';
import { databaseAtVersion } from '../support/old-database';
import { richMessage } from '../mime/fixtures';

/**
 * imap-core's getSize counted 2 bytes too few for every empty leaf part (patched): rows stored
 * before the patch are corrected by a migration, in the cache and in every folder holding
 * the message, without describing the message again (its bytes stay as they were).
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-empty-part-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('sizes stored before the getSize fix grow by 2 bytes per empty part', () => {
  const account = 'me@example.com';
  const record = describeRecord(richMessage()); // one empty attachment
  expect(JSON.parse(record.summary).bodystructure).toMatch(/"BASE64" 0 0 /);
  const stored = record.size - 2;

  // the database as the version before the fix left it
  const before = migrations.findIndex((m) => m.includes("imap-core's getSize"));
  const db = databaseAtVersion(dir, before);
  db.prepare(
    "INSERT INTO folders (id, account, name, uidvalidity, uidnext, highestmodseq) VALUES (1, ?, 'INBOX', 1, 2, 1)",
  ).run(account);
  db.prepare(
    "INSERT INTO folders (id, account, name, uidvalidity, uidnext, highestmodseq) VALUES (2, ?, 'Archive', 1, 2, 1)",
  ).run(account);
  for (const folder of [1, 2])
    db.prepare(
      "INSERT INTO messages (folder_id, uid, message_uid, modseq, flags, seen, idate, size) VALUES (?, 1, ?, 1, '[]', 0, 0, ?)",
    ).run(folder, record.messageUid, stored);
  db.prepare(
    'INSERT INTO message_cache (account, message_uid, size, summary, header, message) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(account, record.messageUid, stored, record.summary, record.header, record.message);
  db.close();

  const store = MailStore.open(dir);
  expect(store.getSummaries(account, [record.messageUid]).get(record.messageUid)?.size).toBe(record.size);
  expect(store.db.prepare('SELECT size FROM messages ORDER BY folder_id').pluck().all()).toEqual([
    record.size,
    record.size,
  ]);
  store.close();
});
