import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { describeRecord } from '../../src/mime';
import { messageKeyNames } from '../../src/store/message-keys-table';
import { MailStore, migrations } from '../../src/store';
import { databaseAtVersion } from '../support/old-database';
import { richMessage } from '../mime/fixtures';

/**
 * message_keys became a rowid table (a sync writes its rows in the random order of message
 * ids): the migration keeps every stored row, readable as before, and new rows go in beside them.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-keys-rowid-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('keys stored in the WITHOUT ROWID table are kept by the migration to a rowid table', () => {
  const account = 'me@example.com';
  const record = describeRecord(richMessage());
  const before = migrations.findIndex((m) => m.includes('CREATE TABLE message_keys_rowid'));
  expect(before).toBeGreaterThan(0);
  const old = new MailStore(databaseAtVersion(dir, before));
  expect(old.db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'message_keys'").pluck().get()).toBe(1);
  old.putMetadataRecords(account, [record]);
  old.close();

  const store = MailStore.open(dir);
  expect(store.db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'message_keys'").pluck().get()).toBe(0);
  expect(store.getMessageKeys(account, [record.messageUid], messageKeyNames).get(record.messageUid)).toEqual(
    record.keys,
  );
  const other = describeRecord({ ...richMessage(), id: 'another' });
  store.putMetadataRecords(account, [other]);
  expect([...store.getMessageKeys(account, [record.messageUid, 'another'], ['baseSubject']).keys()].sort()).toEqual([
    'another',
    record.messageUid,
  ]);
  store.close();
});
