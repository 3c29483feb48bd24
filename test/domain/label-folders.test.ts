import { expect, test } from 'vitest';
import { setupView } from './view-harness';

/** Label folders a client manages (domain/label-folders.ts) where the IMAP tests cannot reach. */

test('a RENAME the vendor applied to no message leaves no new folder behind; RENAME again does it', async () => {
  const { vendor, view, close } = setupView();
  try {
    for (const id of ['a', 'b']) {
      vendor.add(id);
      vendor.messages.get(id)!.labels = ['Old'];
    }
    await view.folders(true);
    // the answer is lost and, read back, the vendor had not applied the write
    vendor.loseNextAnswer = 'before applying';
    await expect(view.renameFolder('Labels/Old', 'Labels/New')).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringMatching(/: 0 of 2 messages are done, 2 still carry the label; RENAME again to finish$/),
    });
    let paths = (await view.folders(true)).map((f) => f.path);
    expect(paths).toContain('Labels/Old');
    expect(paths).not.toContain('Labels/New');

    await view.renameFolder('Labels/Old', 'Labels/New');
    expect([...vendor.messages.values()].map((m) => m.labels)).toEqual([['New'], ['New']]);
    paths = (await view.folders(true)).map((f) => f.path);
    expect(paths).toContain('Labels/New');
    expect(paths).not.toContain('Labels/Old');
  } finally {
    close();
  }
});

test('a vendor that lists no labels (A21) has no label folders: CREATE of one is refused', async () => {
  const { vendor, view, close } = setupView();
  try {
    const list = vendor.listFolders.bind(vendor);
    vendor.listFolders = async () => ({ ...(await list()), labels: null });
    await expect(view.createFolder('Labels/Mine')).rejects.toMatchObject({
      reason: 'cannot',
      message: expect.stringMatching(/does not list labels \(assumption A21\)/),
    });
    expect((await view.folders(true)).map((f) => f.path)).not.toContain('Labels/Mine');
  } finally {
    close();
  }
});
