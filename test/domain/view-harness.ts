import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach } from 'vitest';
import { AccountView } from '../../src/domain/account-view';
import type { FolderChange } from '../../src/domain/changes';
import { ChangeJournal } from '../../src/domain/change-journal';
import { folderKey } from '../../src/model/folder-key';
import { accountId } from '../../src/model/account-id';
import { MailStore } from '../../src/store';
import { FakeVendor } from './fake-vendor';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** An AccountView over a real SQLite store and a FakeVendor, with a clock the test moves. */
export function setupView(opts: { freshnessMs?: number } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-view-'));
  dirs.push(dir);
  const vendor = new FakeVendor();
  const store = MailStore.open(dir);
  const notifier = new ChangeJournal();
  const clock = { now: 1_000_000 };
  const view = new AccountView({
    account: accountId(vendor.mailbox),
    vendor,
    store,
    logger: pino({ level: 'silent' }),
    attachmentCacheDir: path.join(dir, 'attachments'),
    changes: notifier,
    labelsRoot: 'Labels',
    copyToFolder: 'refuse',
    freshnessMs: opts.freshnessMs ?? 15_000,
    now: () => clock.now,
  });
  // a session hears of changes once they are durable (the store publishes them then)
  const updates = async (since: number, folder = 'INBOX') => {
    await store.committed();
    return new Promise<FolderChange[]>((resolve) =>
      notifier.getUpdates(folderKey(accountId(vendor.mailbox), folder), since, (_e, entries) =>
        resolve(entries as FolderChange[]),
      ),
    );
  };
  return { vendor, store, view, clock, updates, close: () => store.close() };
}
