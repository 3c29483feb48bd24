import { expect, test } from 'vitest';
import type { VendorMessage } from '../../src/upstream/types';
import { control, mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';

/**
 * Assumption A29 set the other way, in the bridge's config and in the sandbox alike: a vendor
 * that keeps listing a label after its last message lost it. The API cannot remove such a
 * label, so RENAME and DELETE of a vendor label are refused; a label folder only the bridge has
 * is still renamed and deleted.
 */

const s = useImapSession({
  sandbox: { messages: 10, wireFormat: { emptyLabelsListed: true } },
  config: { assumptions: { emptyLabelsListed: true } },
});

test('the sandbox keeps listing an emptied label; RENAME and DELETE of it are NO [CANNOT], a local one still changes', async () => {
  const [first] = await vendorFolder(s.h.sandbox, 'INBOX');
  await control(s.h.sandbox, 'POST', '/flags', { mailbox, message_uid: first.message_uid, labels: ['Kept'] });
  await s.client.mailboxOpen('Labels/Kept');
  await s.client.messageDelete('1:*');
  const { messages } = await control<{ messages: VendorMessage[] }>(
    s.h.sandbox,
    'GET',
    `/messages?mailbox=${encodeURIComponent(mailbox)}`,
  );
  expect(messages.some((m) => m.labels.includes('Kept'))).toBe(false);
  await s.client.mailboxClose();
  expect((await s.client.list()).map((f) => f.path)).toContain('Labels/Kept');

  for (const change of [s.client.mailboxRename('Labels/Kept', 'Labels/Other'), s.client.mailboxDelete('Labels/Kept')])
    await expect(change).rejects.toMatchObject({
      serverResponseCode: 'CANNOT',
      responseText: expect.stringMatching(/keeps a label listed after its last message lost it/),
    });

  expect((await s.client.mailboxCreate('Labels/Mine')).created).toBe(true);
  await s.client.mailboxRename('Labels/Mine', 'Labels/Ours');
  await s.client.mailboxDelete('Labels/Ours');
  const paths = (await s.client.list()).map((f) => f.path);
  expect(paths).toContain('Labels/Kept');
  expect(paths).not.toContain('Labels/Mine');
  expect(paths).not.toContain('Labels/Ours');
});
