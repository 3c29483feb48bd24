import { expect, test } from 'vitest';
import { useImapSession, vendorFolder } from '../support/bridge-harness';
import { must } from '../support/must';

const s = useImapSession();

test('STORE and MOVE whose vendor answer was lost after being applied answer OK, read back, sent once', async () => {
  await s.client.mailboxOpen('INBOX');
  const [first, second] = (await vendorFolder(s.h.sandbox, 'INBOX')).filter((m) => !m.is_starred);
  const uidOf = async (messageId: string) =>
    must(await s.client.search({ header: { 'message-id': messageId } }, { uid: true }), 'SEARCH')[0];
  const flagUid = await uidOf(first.message_id);
  const moveUid = await uidOf(second.message_id);

  s.h.sandbox.resetStats();
  s.h.sandbox.setFaults({ lostWriteAnswerRate: 1 });
  expect(await s.client.messageFlagsAdd(String(flagUid), ['\\Flagged'], { uid: true })).toBe(true);
  const moved = await s.client.messageMove(String(moveUid), 'Archive', { uid: true });
  s.h.sandbox.setFaults({ lostWriteAnswerRate: 0 });

  expect(must(moved, 'COPYUID').uidMap?.size).toBe(1);
  const fetched = must(await s.client.fetchOne(String(flagUid), { flags: true }, { uid: true }), 'FETCH');
  expect([...(fetched.flags ?? [])]).toContain('\\Flagged');
  expect((await vendorFolder(s.h.sandbox, 'INBOX')).find((m) => m.message_uid === first.message_uid)?.is_starred).toBe(
    true,
  );
  expect((await vendorFolder(s.h.sandbox, 'Archive')).some((m) => m.message_uid === second.message_uid)).toBe(true);
  const commands = s.h.sandbox.stats('alice@sandbox.test').commands;
  expect(commands.flag).toBe(1);
  expect(commands.move).toBe(1);
});
