import { expect, test } from 'vitest';
import type { VendorMessage } from '../../src/upstream/types';
import { control, mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';

/**
 * $Snoozed shows the vendor's snoozed_until. The spec shows no command that snoozes, so the
 * keyword is read-only: a client's STORE neither sets nor clears it, and reaches no vendor label.
 */

const s = useImapSession({ sandbox: { messages: 20 }, config: { fullSyncEveryPolls: 1 } });

async function flagsOf(uid: number): Promise<string[]> {
  const msg = await s.client.fetchOne(String(uid), { flags: true }, { uid: true });
  return msg ? [...(msg.flags ?? [])] : [];
}

test('a snoozed message carries $Snoozed, which a client cannot set or clear', async () => {
  const [first, second] = await vendorFolder(s.h.sandbox, 'INBOX');
  await control(s.h.sandbox, 'POST', '/flags', {
    mailbox,
    message_uid: first.message_uid,
    snoozed_until: '2030-01-01T08:00:00Z',
  });
  await s.h.bridge.pollers[0].tick();
  await s.client.mailboxOpen('INBOX');
  const uids = new Map<string, number>();
  for await (const m of s.client.fetch('1:*', { uid: true, envelope: true }))
    uids.set(m.envelope?.messageId ?? '', m.uid);
  const snoozed = uids.get(first.message_id)!;
  const awake = uids.get(second.message_id)!;
  expect(await flagsOf(snoozed)).toContain('$Snoozed');
  expect(await flagsOf(awake)).not.toContain('$Snoozed');

  await s.client.messageFlagsRemove(String(snoozed), ['$Snoozed'], { uid: true });
  await s.client.messageFlagsAdd(String(awake), ['$Snoozed'], { uid: true });
  expect(await flagsOf(snoozed)).toContain('$Snoozed');
  expect(await flagsOf(awake)).not.toContain('$Snoozed');
  const inbox = await vendorFolder(s.h.sandbox, 'INBOX');
  const vendor = (id: string) => inbox.find((m) => m.message_id === id) as VendorMessage;
  expect(vendor(second.message_id).labels).not.toContain('$Snoozed');
  expect(vendor(first.message_id).snoozed_until).toBe('2030-01-01T08:00:00.000Z');

  // woken up at the vendor: gone after the next poll
  await control(s.h.sandbox, 'POST', '/flags', { mailbox, message_uid: first.message_uid, snoozed_until: null });
  await s.h.bridge.pollers[0].tick();
  expect(await flagsOf(snoozed)).not.toContain('$Snoozed');
});
