import { expect, test, vi } from 'vitest';
import { setupView } from './view-harness';

/** MULTIAPPEND into Drafts (RFC 3502): every message enters the folder, or none does. */

const draft = (subject: string) => Buffer.from(`From: a@example.test\r\nSubject: ${subject}\r\n\r\nbody\r\n`);

test('drafts appended together get consecutive UIDs, in the order given', async () => {
  const { vendor, view, close } = setupView();
  vendor.add('v1', 'Drafts');
  const drafts = await view.folder('Drafts');
  if (!drafts) throw new Error('no Drafts');
  await view.open(drafts);
  const idate = new Date(Date.UTC(2024, 0, 2));
  const appended = await view.appendAll(drafts, [
    { raw: draft('one'), flags: ['\\Seen'], idate },
    { raw: draft('two'), flags: [], idate },
  ]);
  expect(appended.uids).toEqual([2, 3]);
  expect(view.allRows(drafts).map((r) => [r.uid, r.flags])).toEqual([
    [1, []],
    [2, ['\\Seen']],
    [3, []],
  ]);
  close();
});

test('a failure before the drafts enter the folder keeps none of them', async () => {
  const { vendor, store, view, close } = setupView();
  vendor.add('v1', 'Drafts');
  const drafts = await view.folder('Drafts');
  if (!drafts) throw new Error('no Drafts');
  await view.open(drafts);
  const added = vi.spyOn(store.local, 'add');
  vi.spyOn(store, 'putMetadataRecords').mockImplementationOnce(() => {
    throw new Error('disk full');
  });
  const idate = new Date(Date.UTC(2024, 0, 2));
  await expect(
    view.appendAll(drafts, [
      { raw: draft('one'), flags: [], idate },
      { raw: draft('two'), flags: [], idate },
    ]),
  ).rejects.toThrow('disk full');
  expect(view.allRows(drafts).map((r) => r.uid)).toEqual([1]);
  const kept = added.mock.results.map((r) => r.value as string);
  expect(kept).toHaveLength(2);
  for (const id of kept) expect(store.local.get(view.account, id)).toBeNull();
  close();
});
