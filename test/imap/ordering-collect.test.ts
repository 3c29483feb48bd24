import { afterEach, expect, test, vi } from 'vitest';
import type { Session } from '../../src/imap/engine';
import { sortedSearch, threadedSearch } from '../../src/imap/ordered-search';
import { setupView } from '../domain/view-harness';

/**
 * The ordering keys of a large folder, read at once by its first SORT or THREAD, are followed
 * by a full collection (src/util/memory.ts), so that the commands after it, which repeat the
 * kept answer, do not pay for collecting them; smaller reads and kept answers are not.
 */

const gc = vi.fn();
const withoutGc = globalThis.gc;
afterEach(() => {
  globalThis.gc = withoutGc;
  gc.mockReset();
});

async function folderOf(messages: number) {
  const harness = setupView();
  for (let i = 0; i < messages; i++) harness.vendor.add(`m${i}`);
  const inbox = (await harness.view.folder('INBOX'))!;
  const { uids } = await harness.view.open(inbox);
  const session = { id: 's', selected: { mailbox: inbox.key, uidList: uids } } as unknown as Session;
  return { ...harness, inbox, session };
}

test('the first SORT of 5,000 messages is followed by a full collection, its repetitions and THREAD not', async () => {
  const { view, inbox, session, close } = await folderOf(5000);
  try {
    globalThis.gc = gc;
    const sort = { query: [{ key: 'all' }], sort: [{ key: 'date' as const, reverse: false }] };
    const first = await sortedSearch(view, inbox, sort, session, new Set());
    expect(first.uidList).toHaveLength(5000);
    expect(gc).toHaveBeenCalledTimes(1);
    // the same answer kept, and the keys kept for THREAD
    expect((await sortedSearch(view, inbox, sort, session, new Set())).uidList).toEqual(first.uidList);
    await threadedSearch(view, inbox, { query: [{ key: 'all' }], algorithm: 'references' }, session, new Set());
    expect(gc).toHaveBeenCalledTimes(1);
  } finally {
    close();
  }
}, 60_000);

test('a first SORT of fewer messages is not followed by one', async () => {
  const { view, inbox, session, close } = await folderOf(300);
  try {
    globalThis.gc = gc;
    const sort = { query: [{ key: 'all' }], sort: [{ key: 'date' as const, reverse: false }] };
    expect((await sortedSearch(view, inbox, sort, session, new Set())).uidList).toHaveLength(300);
    expect(gc).not.toHaveBeenCalled();
  } finally {
    close();
  }
});
