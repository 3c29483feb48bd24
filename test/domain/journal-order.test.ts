import { expect, test } from 'vitest';
import { setupView } from './view-harness';

test('a STORE during a sync cannot hide the sync EXISTS from a session (journal in modseq order)', async () => {
  const { vendor, view, updates, close } = setupView();
  try {
    vendor.add('old-1');
    vendor.add('old-2');
    const inbox = (await view.folder('INBOX'))!;
    await view.open(inbox);

    // a new message arrives; the incremental sync numbers it, and while the sync's flag refresh
    // is on the way a client's STORE changes an old message
    vendor.add('new-3');
    let release!: () => void;
    let refreshing!: () => void;
    const inRefresh = new Promise<void>((r) => {
      refreshing = r;
    });
    vendor.beforeGetMessages = (ids) => {
      if (ids.includes('new-3')) return;
      refreshing();
      return new Promise<void>((r) => {
        release = r;
      });
    };
    const sync = view.syncFolder(inbox, 'incremental');
    await inRefresh;
    const [old1] = view.rows(inbox, [1]);
    await view.updateFlags(inbox, [old1], 'add', ['\\Flagged']);

    // an IDLE session woken by the STORE reads the journal, then again after the sync, each time
    // from the highest modseq it has seen
    const first = await updates(0);
    release();
    await sync;
    const since = Math.max(0, ...first.map((e) => e.modseq));
    const seen = [...first, ...(await updates(since))];
    expect(seen.filter((e) => e.command === 'EXISTS').map((e) => e.uid)).toEqual([3]);
    expect(seen.filter((e) => e.command === 'FETCH').map((e) => e.uid)).toEqual([1]);
  } finally {
    close();
  }
});
