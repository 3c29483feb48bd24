import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { MailStore, migrations } from '../../src/store';
import { databaseAtVersion } from '../support/old-database';

/**
 * Account names are kept in one spelling, lowercase. State written while the config spelled a
 * mailbox with capitals keeps its UIDVALIDITY, UIDs and cached messages under that spelling.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-spelling-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('rows stored under a capitalised account name are found under its one spelling', () => {
  // the database as the version before the lowercasing migration left it
  const before = migrations.findIndex((m) => m.includes('SET account = lower(account)'));
  const db = databaseAtVersion(dir, before);
  db.prepare(
    "INSERT INTO folders (id, account, name, uidvalidity, uidnext, highestmodseq) VALUES (1, 'Alice@Sandbox.TEST', 'INBOX', 1234, 8, 9)",
  ).run();
  db.prepare(
    "INSERT INTO messages (folder_id, uid, message_uid, modseq, flags, seen, idate, size) VALUES (1, 7, 'm7', 9, '', 0, 0, 10)",
  ).run();
  db.prepare(
    "INSERT INTO quarantine (quarantine_id, account, recipient, subject, message_id, held_at, expires_at, status, detail) VALUES ('q1', 'Alice@Sandbox.TEST', 'x@example.net', 'Hi', NULL, 0, 1, 'held', NULL)",
  ).run();
  db.close();

  const store = MailStore.open(dir);
  const state = store.folderState('alice@sandbox.test', 'INBOX');
  expect(state).toMatchObject({ uidValidity: 1234, uidNext: 8, count: 1 });
  expect(store.listMessages('alice@sandbox.test', 'INBOX').map((r) => [r.uid, r.messageUid])).toEqual([[7, 'm7']]);
  expect(store.db.prepare('SELECT account FROM quarantine').pluck().all()).toEqual(['alice@sandbox.test']);
  store.close();
});
