import { expect, test } from 'vitest';
import { setupView } from './view-harness';

/** A write whose answer was lost is resolved by reading the messages back, not guessed. */

test('STORE: applied despite the lost answer is OK; not applied is NO; local state is the vendor state', async () => {
  const { vendor, view, close } = setupView();
  try {
    for (const id of ['a', 'b']) vendor.add(id);
    const inbox = (await view.folder('INBOX'))!;
    await view.open(inbox);

    vendor.loseNextAnswer = 'after applying';
    const applied = await view.updateFlags(inbox, view.rows(inbox, [1]), 'add', ['\\Flagged']);
    expect(applied.error).toBeUndefined();
    expect(applied.updated.map((u) => u.uid)).toEqual([1]);
    expect(view.rows(inbox, [1])[0].flags).toContain('\\Flagged');
    expect(vendor.messages.get('a')!.flagged).toBe(true);
    expect(vendor.calls.filter((c) => c === 'setFlags')).toHaveLength(1); // never sent twice

    vendor.loseNextAnswer = 'before applying';
    vendor.messages.get('b')!.seen = true; // meanwhile read in webmail
    const lost = await view.updateFlags(inbox, view.rows(inbox, [2]), 'add', ['\\Flagged']);
    expect(lost.error).toBeDefined();
    expect(lost.updated).toEqual([]);
    expect(view.rows(inbox, [2])[0].flags).toEqual(['\\Seen']);
    expect(vendor.messages.get('b')!.flagged).toBe(false);
  } finally {
    close();
  }
});

test('MOVE: a lost answer after the vendor moved the message still moves it, with its COPYUID', async () => {
  const { vendor, view, close } = setupView();
  try {
    for (const id of ['a', 'b']) vendor.add(id);
    vendor.add('z', 'Archive');
    const inbox = (await view.folder('INBOX'))!;
    const archive = (await view.folder('Archive'))!;
    await view.open(inbox);
    await view.open(archive);

    vendor.loseNextAnswer = 'after applying';
    const moved = await view.move(inbox, view.rows(inbox, [2]), archive);
    expect(moved).toMatchObject({ sourceUids: [2], destinationUids: [2], expunged: [2] });
    expect(view.allRows(inbox).map((r) => r.messageUid)).toEqual(['a']);

    vendor.loseNextAnswer = 'before applying';
    await expect(view.move(inbox, view.rows(inbox, [1]), archive)).rejects.toThrow(/had not applied the change/);
    expect(view.allRows(inbox).map((r) => r.messageUid)).toEqual(['a']);
    expect(vendor.messages.get('a')!.folders).toEqual(['INBOX']);
  } finally {
    close();
  }
});
