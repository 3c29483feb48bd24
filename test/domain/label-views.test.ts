import { expect, test } from 'vitest';
import { labelKey } from '../../src/domain/label-key';
import { setupView } from './view-harness';

test('a label keyword STOREd in a folder puts the message in that label view at once, and removing it takes it out', async () => {
  const { vendor, view, updates, close } = setupView();
  try {
    vendor.add('a');
    vendor.add('b');
    vendor.messages.get('a')!.labels = ['Work'];
    const inbox = (await view.folder('INBOX'))!;
    const work = (await view.folder('Labels/Work'))!;
    await view.open(inbox);
    expect((await view.open(work)).uids).toEqual([1]);
    const { highestModseq } = await view.status(work);

    const [b] = view.allRows(inbox).filter((r) => r.messageUid === 'b');
    await view.updateFlags(inbox, [b], 'add', ['Work']);
    expect(vendor.messages.get('b')!.labels).toEqual(['Work']);
    expect(view.allRows(work).map((r) => r.messageUid)).toEqual(['a', 'b']);
    const joined = await updates(highestModseq, labelKey('Work'));
    expect(joined.filter((c) => c.command === 'EXISTS').map((c) => c.uid)).toEqual([2]);

    await view.updateFlags(inbox, view.rows(inbox, [b.uid]), 'remove', ['Work']);
    expect(view.allRows(work).map((r) => r.messageUid)).toEqual(['a']);
  } finally {
    close();
  }
});
