import { expect, test } from 'vitest';
import { useImapSession, vendorFolder } from '../support/bridge-harness';
import { must } from '../support/must';

const s = useImapSession();
const mailbox = 'alice@sandbox.test';

test('a STORE needing several vendor commands (a flag and two labels) sends them in one request; the vendor has them all', async () => {
  await s.client.mailboxOpen('INBOX');
  const inbox = await vendorFolder(s.h.sandbox, 'INBOX');
  const picked = [inbox.find((m) => m.is_starred), ...inbox.filter((m) => !m.is_starred).slice(0, 2)].map((m) =>
    must(m, 'a message'),
  );
  const uids = await Promise.all(
    picked.map(
      async (m) => must(await s.client.search({ header: { 'message-id': m.message_id } }, { uid: true }), 'SEARCH')[0],
    ),
  );

  s.h.sandbox.resetStats();
  expect(await s.client.messageFlagsAdd(uids.join(','), ['\\Flagged', 'Alpha', 'Beta'], { uid: true })).toBe(true);

  const stats = s.h.sandbox.stats(mailbox);
  // one flag command (the unstarred two) and one label command per keyword
  expect(stats.commands.flag).toBe(1);
  expect(stats.commands.label).toBe(2);
  expect(stats.requests).toBe(1);
  const after = await vendorFolder(s.h.sandbox, 'INBOX');
  for (const m of picked) {
    const now = must(
      after.find((v) => v.message_uid === m.message_uid),
      'the message',
    );
    expect(now.is_starred).toBe(true);
    expect(now.labels).toEqual(expect.arrayContaining(['Alpha', 'Beta']));
  }
});
