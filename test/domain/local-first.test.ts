import { expect, test } from 'vitest';
import { setupView } from './view-harness';

/** SELECT, EXAMINE and STATUS answer from local state; the vendor is asked in the background. */

test('opening a fresh folder asks the vendor nothing; sessions opening a stale one share one sync', async () => {
  const { vendor, view, clock, close } = setupView({ freshnessMs: 15_000 });
  try {
    for (const id of ['a', 'b', 'c']) vendor.add(id);
    const inbox = (await view.folder('INBOX'))!;
    expect((await view.open(inbox)).uids).toEqual([1, 2, 3]);

    vendor.calls.length = 0;
    const fresh = await Promise.all(Array.from({ length: 10 }, () => view.open(inbox)));
    expect(fresh.map((o) => o.uids.length)).toEqual(Array(10).fill(3));
    expect(vendor.calls).toEqual([]);

    clock.now += 20_000;
    await Promise.all(Array.from({ length: 10 }, () => view.open(inbox)));
    await view.syncFolder(inbox, 'incremental'); // joins the background sync
    expect(vendor.calls.filter((c) => c === 'listMessages')).toHaveLength(1);
  } finally {
    close();
  }
});

test('a stale folder opens from local state while the vendor is slow; new mail follows as EXISTS', async () => {
  const { vendor, view, clock, updates, close } = setupView();
  try {
    vendor.add('a');
    vendor.add('b');
    const inbox = (await view.folder('INBOX'))!;
    await view.open(inbox);
    const { highestModseq } = await view.status(inbox);

    vendor.add('c');
    clock.now += 60_000;
    let release!: () => void;
    vendor.beforeGetMessages = () =>
      new Promise<void>((r) => {
        release = r;
      });
    const opened = await view.open(inbox);
    expect(opened.uids).toEqual([1, 2]);
    expect(await updates(highestModseq)).toEqual([]);

    release();
    vendor.beforeGetMessages = () => undefined;
    await view.syncFolder(inbox, 'incremental');
    expect((await updates(highestModseq)).filter((e) => e.command === 'EXISTS').map((e) => e.uid)).toEqual([3]);
  } finally {
    close();
  }
});

test('STATUS of folders never listed costs one list_folders; the UIDNEXT it announced never goes back', async () => {
  const { vendor, view, close } = setupView();
  try {
    vendor.add('i1');
    for (const id of ['a1', 'a2', 'a3']) vendor.add(id, 'Archive');
    vendor.add('s1', 'Sent');
    const archive = (await view.folder('Archive'))!;
    const sent = (await view.folder('Sent'))!;
    vendor.calls.length = 0;

    const before = await view.status(archive);
    expect(before).toMatchObject({ messages: 3, unseen: 3, uidNext: 4 });
    expect(await view.status(sent)).toMatchObject({ messages: 1, unseen: 1, uidNext: 2 });
    expect(vendor.calls.filter((c) => c !== 'listFolders')).toEqual([]);
    expect(vendor.calls.filter((c) => c === 'listFolders').length).toBeLessThanOrEqual(1);

    // one message leaves before the folder is first listed: UIDNEXT stays where it was announced
    vendor.messages.delete('a2');
    const opened = await view.open(archive);
    expect(opened.uids).toHaveLength(2);
    expect(opened.uidNext).toBeGreaterThanOrEqual(before.uidNext);
    expect(opened.uidValidity).toBe(before.uidValidity);
  } finally {
    close();
  }
});

test('a stale folder list answers at once and is refreshed by one list_folders, however many sessions ask', async () => {
  const { vendor, view, clock, close } = setupView();
  try {
    vendor.add('a');
    expect((await view.folders()).map((f) => f.path)).toContain('INBOX');
    vendor.calls.length = 0;

    clock.now += 120_000;
    let release!: () => void;
    vendor.beforeFolderList = () =>
      new Promise<void>((r) => {
        release = r;
      });
    const answers = await Promise.all(Array.from({ length: 50 }, () => view.folder('INBOX')));
    expect(answers.every((f) => f?.path === 'INBOX')).toBe(true);
    expect(vendor.calls.filter((c) => c === 'listFolders')).toHaveLength(1);

    // a folder the old list lacks waits for the refresh under way instead of starting another
    vendor.add('x', 'Projects');
    const projects = view.folder('Projects');
    release();
    expect((await projects)?.path).toBe('Projects');
    expect(vendor.calls.filter((c) => c === 'listFolders')).toHaveLength(1);
  } finally {
    close();
  }
});
