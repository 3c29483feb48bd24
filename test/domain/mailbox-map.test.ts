import { expect, test } from 'vitest';
import { inScope, labelViewOf, MailboxMap, mailboxAt } from '../../src/domain/mailbox-map';

const list = {
  folders: [
    { name: 'Inbox', role: 'inbox' as const, total: 3, unread: 1 },
    { name: 'Sent Items', role: 'sent' as const, total: 1, unread: 0 },
    { name: 'Labels/Work', role: null, total: 0, unread: 0 },
  ],
  labels: ['Work', 'Later', 'a*b'],
};

test('vendor folders and labels as mailboxes: INBOX by role, special-use by role, a view per usable label', () => {
  const hidden: string[] = [];
  const map = new MailboxMap('Labels', (label) => hidden.push(label));
  const boxes = map.fromVendor(list);
  expect(boxes.map((b) => [b.path, b.key, b.specialUse])).toEqual([
    ['INBOX', 'Inbox', null],
    ['Sent Items', 'Sent Items', '\\Sent'],
    ['Labels/Work', 'Labels/Work', null],
    ['Labels/Later', expect.not.stringMatching(/^Labels\//), null],
  ]);
  // each mailbox's kind decides what its operations mean (mailbox-kinds/)
  expect(boxes.map((b) => b.kind)).toEqual(['folder', 'sent', 'folder', 'label']);
  // a folder already named like the view, and a name with a wildcard, cannot be label views
  expect(hidden).toEqual(['Work', 'a*b']);
  expect(mailboxAt(boxes, 'inbox')?.key).toBe('Inbox');
  const later = mailboxAt(boxes, 'Labels/Later')!;
  expect(labelViewOf(later)).toEqual({ key: later.key, label: 'Later' });
  expect(map.viewByKey(later.key)?.path).toBe('Labels/Later');
  expect(labelViewOf(boxes[0])).toBeNull();
  // a name under the root that no label has yet is the view a COPY creates
  expect(map.viewAt('Labels/New')?.scope).toEqual({ label: 'New' });
  expect(map.viewAt('Archive')).toBeNull();
});

test('labels hidden when there is no labels root; scope membership by folder (any case) or label', () => {
  const hidden: string[] = [];
  const map = new MailboxMap(null, (label) => hidden.push(label));
  expect(map.fromVendor(list).map((b) => b.path)).toEqual(['INBOX', 'Sent Items', 'Labels/Work']);
  expect(hidden).toEqual([]);
  expect(map.viewAt('Labels/Work')).toBeNull();
  expect(inScope({ folders: ['INBOX'], labels: [] }, { folder: 'Inbox' })).toBe(true);
  expect(inScope({ folders: ['Archive'], labels: ['Work'] }, { label: 'Work' })).toBe(true);
  expect(inScope({ folders: ['Archive'], labels: ['Later'] }, { label: 'Work' })).toBe(false);
});
