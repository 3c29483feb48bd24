import { expect, test, vi } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { DescribePool, type MetadataRecord } from '../../src/mime';
import { setupView } from './view-harness';
import type { Detail, Lane } from '../../src/domain/connector';

/** Holds every describing until released: `held` has one release a call, in order. */
function holdDescribing() {
  const original = DescribePool.prototype.describe;
  const held: Array<() => void> = [];
  const spy = vi.spyOn(DescribePool.prototype, 'describe').mockImplementation(function (
    this: DescribePool,
    messages: readonly MailMessage[],
  ) {
    return new Promise<MetadataRecord[]>((resolve, reject) =>
      held.push(() => original.call(this, messages).then(resolve, reject)),
    );
  });
  return { held, spy };
}

/**
 * A sync fetches messages faster than a loaded machine describes them: every fetched batch
 * waiting for description holds its messages, bodies included. Listing pauses while too many
 * batches wait, so a large mailbox's sync holds a bounded number of messages, not the folder.
 */
test('listing waits while fetched batches wait to be described', async () => {
  const { vendor, view, close } = setupView();
  const { held, spy } = holdDescribing();
  try {
    vendor.pageSize = 10;
    for (let i = 0; i < 200; i++) vendor.add(`m-${i}`);
    const inbox = (await view.folder('INBOX'))!;
    const sync = view.syncFolder(inbox, 'full');
    const fetched = () => vendor.calls.filter((c) => c === 'getMessages').length;
    // let the sync run as far as it goes while nothing is described
    for (let i = 0, last = -1; i < 50 && fetched() !== last; i++) {
      last = fetched();
      for (let j = 0; j < 20; j++) await new Promise((r) => setImmediate(r));
    }
    expect(held.length).toBe(fetched());
    expect(fetched()).toBeGreaterThan(1);
    expect(fetched()).toBeLessThan(20);
    // describing goes on: the sync lists and fetches the rest, and numbers everything
    spy.mockRestore();
    for (const release of held.splice(0)) release();
    await sync;
    expect(fetched()).toBe(20);
    expect((await view.open(inbox)).uids).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  } finally {
    spy.mockRestore();
    close();
  }
});

/**
 * The list pages of a sync form a chain that fills the vendor's window; a message's attachment
 * download (message/* parts) among them would delay every later page by a place in it. The
 * sync's fetches start their downloads only once the last page was asked for.
 */
test("a sync's attachment downloads wait until its last page's messages came", async () => {
  const { vendor, view, close } = setupView();
  try {
    vendor.pageSize = 10;
    for (let i = 0; i < 45; i++) vendor.add(`m-${i}`);
    // for each fetch: whether it was told to wait, and whether that wait is over
    const waits: Array<{ told: boolean; over: boolean }> = [];
    const get = vendor.getMessages.bind(vendor);
    vendor.getMessages = (ids: string[], _detail?: Detail, _lane?: Lane, partsAfter?: Promise<unknown>) => {
      const wait = { told: partsAfter !== undefined, over: false };
      void partsAfter?.then(() => {
        wait.over = true;
      });
      waits.push(wait);
      return get(ids);
    };
    // the last page's messages are held: no download may start before they came
    let release: () => void = () => undefined;
    vendor.beforeGetMessages = () =>
      waits.length === 5 ? new Promise<void>((resolve) => (release = resolve)) : undefined;
    const waitingAtListing: boolean[] = [];
    const list = vendor.listMessages.bind(vendor);
    vendor.listMessages = (...args) => {
      waitingAtListing.push(waits.every((w) => w.told && !w.over));
      return list(...args);
    };
    const sync = view.syncFolder((await view.folder('INBOX'))!, 'full');
    while (waits.length < 5) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(waits.some((w) => w.over)).toBe(false);
    release();
    await sync;
    expect(waits.length).toBe(5);
    expect(waitingAtListing).toEqual([true, true, true, true, true]);
    expect(waits.every((w) => w.over)).toBe(true);
  } finally {
    close();
  }
});

/**
 * A cold account's SELECT of INBOX asks for INBOX's first page with the folder list; only the
 * sync that SELECT starts right after the list came takes it. A sync started later lists from
 * the start: the page may be old by then.
 */
test("INBOX's first page asked for with a cold account's folder list is not taken by a later sync", async () => {
  const { vendor, view, close } = setupView();
  try {
    for (let i = 0; i < 5; i++) vendor.add(`m-${i}`);
    const inbox = (await view.folder('INBOX', true))!;
    expect(vendor.calls).toEqual(['listFolders', 'listMessages']);
    await new Promise((r) => setImmediate(r));
    vendor.add('m-new');
    expect((await view.open(inbox)).uids).toHaveLength(6);
    expect(vendor.calls.filter((c) => c === 'listMessages')).toHaveLength(2);
  } finally {
    close();
  }
});

type Store = ReturnType<typeof setupView>['store'];

type Vendor = ReturnType<typeof setupView>['vendor'];
type Fetched = Awaited<ReturnType<Vendor['getMessages']>>;

/**
 * Message `id` comes as one whose composing waits for attachment downloads: its model at once,
 * composed when `composed` settles.
 */
function comesLater(
  vendor: Vendor,
  id: string,
  composed: (waiting: Fetched['messages']) => Promise<Fetched['messages']>,
) {
  const get = vendor.getMessages.bind(vendor);
  vendor.getMessages = async (ids: string[]) => {
    const fetched = await get(ids);
    const waiting = fetched.messages.filter((m) => m.id === id);
    if (!waiting.length) return fetched;
    return {
      ...fetched,
      messages: fetched.messages.filter((m) => m.id !== id),
      later: { messages: waiting, composed: composed(waiting) },
    };
  };
}

/** Calls `seen` with the arguments of each numbering (assignUids) before it runs. */
function onNumbering(store: Store, seen: (args: Parameters<Store['assignUids']>) => void): void {
  const assign = store.assignUids.bind(store);
  vi.spyOn(store, 'assignUids').mockImplementation((...args) => {
    seen(args);
    return assign(...args);
  });
}

/**
 * A client's SELECT of a folder being synced waits for the sync and then for its writes to be
 * durable: a sync that left them all to that flush made the client wait for the whole
 * folder's. Each batch stored is flushed as the sync goes.
 */
test('a sync makes each batch it stores durable as it goes, before numbering', async () => {
  const { vendor, store, view, close } = setupView();
  try {
    vendor.pageSize = 10;
    for (let i = 0; i < 50; i++) vendor.add(`m-${i}`);
    const flushes = vi.spyOn(store, 'committed');
    let flushedBeforeNumbering = -1;
    onNumbering(store, () => {
      if (flushedBeforeNumbering < 0) flushedBeforeNumbering = flushes.mock.calls.length;
    });
    await view.syncFolder((await view.folder('INBOX'))!, 'first');
    expect((await view.open((await view.folder('INBOX'))!)).uids).toHaveLength(50);
    // five batches: the first four at least were stored before the last page's were numbered
    expect(flushedBeforeNumbering).toBeGreaterThanOrEqual(4);
  } finally {
    close();
  }
});

/**
 * After the last page, a cold sync's SELECT waits for the messages whose composing downloads
 * attachments. What numbering needs of them (id, arrival, flags) came with their get_messages:
 * the folder is numbered while the downloads are under way.
 */
test("a first sync numbers the folder while its downloads' messages are on their way", async () => {
  const { vendor, store, view, close } = setupView();
  try {
    vendor.pageSize = 10;
    for (let i = 0; i < 25; i++) vendor.add(`m-${i}`);
    let downloaded: () => void = () => undefined;
    const downloads = new Promise<void>((resolve) => (downloaded = resolve));
    comesLater(vendor, 'm-3', (waiting) => downloads.then(() => waiting));
    const numbered: number[] = [];
    onNumbering(store, (args) => numbered.push(args[2].length));
    const inbox = (await view.folder('INBOX'))!;
    let synced = false;
    const sync = view.syncFolder(inbox, 'first').then(() => {
      synced = true;
    });
    for (let i = 0; i < 50 && !numbered.length; i++) await new Promise((r) => setImmediate(r));
    expect(numbered).toEqual([25]); // m-3 included, in its place
    expect(synced).toBe(false);
    downloaded();
    await sync;
    expect((await view.open(inbox)).uids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const row = store.listMessages(vendor.mailbox, 'INBOX').find((r) => r.messageUid === 'm-3');
    expect(row?.uid).toBe(4);
    expect(store.getSummaries(vendor.mailbox, ['m-3']).size).toBe(1); // described and stored once it came
  } finally {
    close();
  }
});

/**
 * A download that fails while the sync's fetched batches are still being described fails the
 * sync once they are stored, as its answer, not as a rejection nobody handled meanwhile.
 */
test('a download failing while the batches are described fails the sync, and only the sync', async () => {
  const { vendor, view, close } = setupView();
  const { held, spy } = holdDescribing();
  try {
    vendor.pageSize = 10;
    for (let i = 0; i < 15; i++) vendor.add(`m-${i}`);
    comesLater(vendor, 'm-3', () => Promise.reject(new Error('download failed')));
    for (const mode of ['full', 'first'] as const) {
      const sync = view.syncFolder((await view.folder('INBOX'))!, mode);
      const outcome = sync.then(
        () => 'synced',
        (err: Error) => err.message,
      );
      // the download has failed; the batches are still being described
      while (held.length < 2) await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      for (const release of held.splice(0)) release();
      expect(await outcome).toBe('download failed');
    }
  } finally {
    spy.mockRestore();
    close();
  }
});
