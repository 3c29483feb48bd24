import pino from 'pino';
import { expect, test } from 'vitest';
import { MailboxPoller } from '../../src/domain/poller';
import { setupView } from './view-harness';

test('a full poll drops the cached form of messages no folder holds any more', async () => {
  const { vendor, view, store, close } = setupView();
  try {
    for (const id of ['a', 'b', 'c']) vendor.add(id);
    const inbox = (await view.folder('INBOX'))!;
    await view.open(inbox);
    expect([...store.getSummaries(vendor.mailbox, ['a', 'b', 'c']).keys()].sort()).toEqual(['a', 'b', 'c']);

    vendor.messages.delete('b'); // deleted in webmail
    const poller = new MailboxPoller(view, 60_000, 10, pino({ level: 'silent' }));
    await poller.tick(); // the first poll is a full reconciliation
    expect(view.allRows(inbox).map((r) => r.messageUid)).toEqual(['a', 'c']);
    expect([...store.getSummaries(vendor.mailbox, ['a', 'b', 'c']).keys()].sort()).toEqual(['a', 'c']);
  } finally {
    close();
  }
});
