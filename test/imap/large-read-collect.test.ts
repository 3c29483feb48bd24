import { afterEach, expect, test, vi } from 'vitest';
import type { FetchOptions, Session } from '../../src/imap/engine';
import { fetchMessages } from '../../src/imap/fetch';
import { sortedSearch, threadedSearch } from '../../src/imap/ordered-search';
import { WireChunks } from '../../src/imap/wire-chunks';
import { setupView } from '../domain/view-harness';

/**
 * What a large folder's first SORT or THREAD (the keys it compares) and first metadata FETCH (its
 * summaries' bytes) read at once and keep is followed by a full collection (src/util/memory.ts),
 * so that the commands after them, which repeat kept answers, do not pay for collecting it;
 * smaller reads and kept answers are not.
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
  const out = new WireChunks();
  let lines = 0;
  // a session of a metadata FETCH: its responses counted as written
  const session = {
    id: 's',
    selected: { mailbox: inbox.key, uidList: uids },
    utf8: () => false,
    untagged: {
      keywords: () => undefined,
      fetchLines: () => ({
        begin: () => out,
        end: () => {
          out.endLine();
          lines++;
        },
        drop: () => out.dropLine(),
        flush: () => {
          out.take();
          return null;
        },
      }),
    },
  } as unknown as Session;
  return { ...harness, inbox, session, lines: () => lines };
}

const token = (value: string) => ({ type: 'ATOM', value });
const metadataFetch = (uids: number[]): FetchOptions => ({
  query: [
    { item: 'uid', original: token('UID') },
    { item: 'flags', original: token('FLAGS') },
    { item: 'envelope', original: token('ENVELOPE') },
    { item: 'bodystructure', original: token('BODYSTRUCTURE') },
  ],
  messages: uids,
  markAsSeen: false,
  metadataOnly: true,
  isUid: true,
});

test('the first metadata FETCH of 5,000 messages is followed by a full collection, its repetition not', async () => {
  const { view, inbox, session, lines, close } = await folderOf(5000);
  try {
    globalThis.gc = gc;
    const uids = view.allRows(inbox).map((r) => r.uid);
    await fetchMessages(view, inbox, metadataFetch(uids), session, new Set());
    expect(lines()).toBe(5000);
    expect(gc).toHaveBeenCalledTimes(1);
    await fetchMessages(view, inbox, metadataFetch(uids), session, new Set());
    expect(lines()).toBe(10_000);
    expect(gc).toHaveBeenCalledTimes(1);
    // a FETCH of fewer messages whose bytes are not kept: none
    await fetchMessages(view, inbox, metadataFetch(uids.slice(0, 300)), { ...session, utf8: () => true }, new Set());
    expect(lines()).toBe(10_300);
    expect(gc).toHaveBeenCalledTimes(1);
  } finally {
    close();
  }
}, 60_000);

test('the first SORT of 5,000 messages is followed by a full collection, its repetition not, a THREAD reading other keys too', async () => {
  const { view, inbox, session, close } = await folderOf(5000);
  try {
    globalThis.gc = gc;
    const sort = { query: [{ key: 'all' }], sort: [{ key: 'date' as const, reverse: false }] };
    const first = await sortedSearch(view, inbox, sort, session, new Set());
    expect(first.uidList).toHaveLength(5000);
    expect(gc).toHaveBeenCalledTimes(1);
    // the same answer kept
    expect((await sortedSearch(view, inbox, sort, session, new Set())).uidList).toEqual(first.uidList);
    expect(gc).toHaveBeenCalledTimes(1);
    // THREAD reads the keys SORT (DATE) did not (subjects, Message-IDs), once
    const thread = { query: [{ key: 'all' }], algorithm: 'references' as const };
    await threadedSearch(view, inbox, thread, session, new Set());
    expect(gc).toHaveBeenCalledTimes(2);
    await threadedSearch(view, inbox, thread, session, new Set());
    expect(gc).toHaveBeenCalledTimes(2);
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
