import { expect, test } from 'vitest';
import { setupView } from './view-harness';

test('a message that cannot be converted is served as a placeholder; a full sync converts it under a new UID', async () => {
  const { vendor, view, updates, close } = setupView();
  try {
    vendor.add('good-1');
    vendor.add('odd-2');
    vendor.add('good-3');
    // a shape the spec does not rule out but the composer cannot take
    (vendor.messages.get('odd-2') as unknown as { from: unknown }).from = { address: 42 };
    const inbox = (await view.folder('INBOX'))!;
    expect((await view.open(inbox)).uids).toEqual([1, 2, 3]);

    const header = async (uid: number) => {
      const [row] = view.rows(inbox, [uid]);
      return (await view.contents([row.messageUid])).get(row.messageUid)!.mimeTree.header.join('\n');
    };
    expect(await header(2)).toContain('X-Mailbridge-Unconvertible: yes');
    expect(await header(2)).toContain('Subject: =?UTF-8?B?');
    expect(await header(1)).not.toContain('X-Mailbridge-Unconvertible');
    expect((await view.summaries(['odd-2'])).get('odd-2')!.size).toBeGreaterThan(0);
    // what a metadata FETCH copies (kept once read) is the placeholder's too
    const envelope = async () => {
      const [kept] = await view.summaryBytes(['odd-2'], false);
      return kept!.envelope.toString('latin1');
    };
    expect(await envelope()).not.toContain('sender@example.org');

    // the vendor's data becomes usable (or the bridge learns to read it): the next full sync
    vendor.messages.get('odd-2')!.from = { address: 'sender@example.org' };
    const { highestModseq } = await view.status(inbox);
    await view.syncFolder(inbox, 'full');
    const changes = await updates(highestModseq);
    expect(changes.filter((c) => c.command === 'EXPUNGE').map((c) => c.uid)).toEqual([2]);
    expect(changes.filter((c) => c.command === 'EXISTS').map((c) => c.uid)).toEqual([4]);
    expect(view.allRows(inbox).map((r) => `${r.uid}:${r.messageUid}`)).toEqual(['1:good-1', '3:good-3', '4:odd-2']);
    expect(await header(4)).not.toContain('X-Mailbridge-Unconvertible');
    expect(await header(4)).toContain('sender@example.org');
    expect(await envelope()).toContain('"sender" "example.org"');
  } finally {
    close();
  }
});
