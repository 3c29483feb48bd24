import { expect, test, vi } from 'vitest';
import { contentBytes, keptForFetchMs, MessageCache } from '../../src/domain/message-cache';
import type { MetadataRecord } from '../../src/mime';
import { ManualClock } from '../support/manual-clock';
import { accountId } from '../../src/model/account-id';
import { setupView } from './view-harness';

/** A synced INBOX of `count` messages, and a MessageCache over its store keeping `keptBytes` of trees. */
async function syncedCache(count: number, keptBytes?: number) {
  const setup = setupView();
  for (let i = 1; i <= count; i++) setup.vendor.add(`m-${i}`);
  const inbox = (await setup.view.folder('INBOX'))!;
  await setup.view.open(inbox);
  const account = accountId(setup.vendor.mailbox);
  const cache = new MessageCache(account, setup.vendor, setup.store, setup.store.local, keptBytes);
  const content = async (uid: string) => (await cache.contents([uid])).get(uid)!;
  return { ...setup, cache, content };
}

test('the trees of a mailbox read through are kept while they fit the byte budget, not a count', async () => {
  const { content, close } = await syncedCache(300);
  try {
    const first = await content('m-1');
    for (let i = 2; i <= 300; i++) await content(`m-${i}`);
    // the same object: not composed again
    expect(await content('m-1')).toBe(first);
  } finally {
    close();
  }
});

test('the least recently read tree is dropped once the budget is spent', async () => {
  const probe = await syncedCache(3);
  const sizes = await Promise.all(['m-1', 'm-2', 'm-3'].map(async (u) => contentBytes(await probe.content(u))));
  probe.close();
  expect(Math.min(...sizes)).toBeGreaterThan(0);
  const { content, close } = await syncedCache(3, sizes[1] + sizes[2]);
  try {
    const first = await content('m-1');
    const second = await content('m-2');
    const third = await content('m-3');
    expect(await content('m-3')).toBe(third);
    expect(await content('m-2')).toBe(second);
    const again = await content('m-1');
    expect(again).not.toBe(first);
    expect(again.mimeTree.header).toEqual(first.mimeTree.header);
  } finally {
    close();
  }
});

/**
 * A MessageCache on a synced INBOX of m-1 and m-2 with a manual clock, what a sync would keep
 * of a message, and a spy on the store's summary reads.
 */
async function keptBySync() {
  const setup = setupView();
  for (let i = 1; i <= 2; i++) setup.vendor.add(`m-${i}`);
  await setup.view.open((await setup.view.folder('INBOX'))!);
  const account = accountId(setup.vendor.mailbox);
  const clock = new ManualClock();
  const cache = new MessageCache(account, setup.vendor, setup.store, setup.store.local, undefined, clock);
  const stored = setup.store.getSummaries(account, ['m-1', 'm-2']);
  const record = (uid: string) =>
    ({ messageUid: uid, summary: JSON.stringify(stored.get(uid)!.compiled) }) as MetadataRecord;
  const read = vi.spyOn(setup.store, 'getSummaries');
  const close = () => {
    read.mockRestore();
    setup.close();
  };
  return { account, clock, cache, record, read, close };
}

test('summaries a sync kept wait a while for a FETCH: those no FETCH read are then dropped, those read stay', async () => {
  const { account, clock, cache, record, read, close } = await keptBySync();
  try {
    cache.keep([record('m-1'), record('m-2')]);
    cache.shown(['m-1', 'm-2']);
    const [first] = await cache.summaryBytes(['m-1'], false);
    expect(first?.envelope.toString('latin1')).toMatch(/^\(/);
    expect(read).not.toHaveBeenCalled();
    await clock.advance(keptForFetchMs);
    await cache.summaryBytes(['m-1'], false);
    expect(read).not.toHaveBeenCalled();
    await cache.summaryBytes(['m-2'], false);
    expect(read).toHaveBeenCalledWith(account, ['m-2']);
  } finally {
    close();
  }
});

test('what a sync kept waits while the sync goes on, however long: a sync longer than the wait keeps its first batches for the FETCH after it', async () => {
  const { clock, cache, record, read, close } = await keptBySync();
  try {
    cache.keep([record('m-1')]);
    await clock.advance(keptForFetchMs * 2);
    cache.keep([record('m-2')]);
    cache.shown(['m-1', 'm-2']);
    await clock.advance(keptForFetchMs - 1);
    await cache.summaryBytes(['m-1', 'm-2'], false);
    expect(read).not.toHaveBeenCalled();
  } finally {
    close();
  }
});

test("what a sync kept and no FETCH read is dropped once the wait after that sync's end is up, each sync's at its own time", async () => {
  const { account, clock, cache, record, read, close } = await keptBySync();
  try {
    cache.keep([record('m-1')]);
    cache.shown(['m-1']);
    await clock.advance(keptForFetchMs / 2);
    cache.keep([record('m-2')]);
    cache.shown(['m-2']);
    await clock.advance(keptForFetchMs / 2);
    await cache.summaryBytes(['m-2'], false);
    expect(read).not.toHaveBeenCalled();
    await cache.summaryBytes(['m-1'], false);
    expect(read).toHaveBeenCalledWith(account, ['m-1']);
    read.mockClear();
    await clock.advance(keptForFetchMs);
    // m-2 was read before its time was up: it stays
    await cache.summaryBytes(['m-2'], false);
    expect(read).not.toHaveBeenCalled();
  } finally {
    close();
  }
});
