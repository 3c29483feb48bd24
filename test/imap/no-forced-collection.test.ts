import { afterEach, expect, test, vi } from 'vitest';
import type { FetchOptions, Session } from '../../src/imap/engine';
import { fetchMessages } from '../../src/imap/fetch';
import { sortedSearch, threadedSearch } from '../../src/imap/ordered-search';
import { WireChunks } from '../../src/imap/wire-chunks';
import { setupView } from '../domain/view-harness';

/**
 * A client's command never forces a full collection, not even a large folder's first SORT,
 * THREAD or metadata FETCH, which read and keep the keys or summaries' bytes of every message:
 * a forced collection stops every session of the daemon for its length, and the client waiting
 * pays it. With one after the first `UID SORT (DATE)` of 10,041 messages it took 100 ms against
 * Dovecot's 43 ms, and the first `SEARCH SUBJECT Übergabe` 113 ms against 17; without, 45 and
 * 39 ms (BENCH_ONLY=imap, quiet machine, 2026-11-27, the same code otherwise). V8 collects
 * what they promote concurrently, on its own schedule; the repeated commands answer from kept
 * answers (median 2 ms for that SORT). Only background jobs (a folder's first sync, a takeover)
 * end with a forced collection (src/util/memory.ts).
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

test('the first metadata FETCH of 5,000 messages and its repetition force no collection', async () => {
  const { view, inbox, session, lines, close } = await folderOf(5000);
  try {
    globalThis.gc = gc;
    const uids = view.allRows(inbox).map((r) => r.uid);
    await fetchMessages(view, inbox, metadataFetch(uids), session, new Set());
    await fetchMessages(view, inbox, metadataFetch(uids), session, new Set());
    expect(lines()).toBe(10_000);
    expect(gc).not.toHaveBeenCalled();
  } finally {
    close();
  }
}, 60_000);

test('the first SORT and THREAD of 5,000 messages force no collection', async () => {
  const { view, inbox, session, close } = await folderOf(5000);
  try {
    globalThis.gc = gc;
    const sort = { query: [{ key: 'all' }], sort: [{ key: 'date' as const, reverse: false }] };
    expect((await sortedSearch(view, inbox, sort, session, new Set())).uidList).toHaveLength(5000);
    // THREAD reads the keys SORT (DATE) did not (subjects, Message-IDs)
    const thread = { query: [{ key: 'all' }], algorithm: 'references' as const };
    await threadedSearch(view, inbox, thread, session, new Set());
    expect(gc).not.toHaveBeenCalled();
  } finally {
    close();
  }
}, 60_000);
