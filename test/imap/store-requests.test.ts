import { expect, test } from 'vitest';
import { useImapSession, vendorFolder } from '../support/bridge-harness';
import { must } from '../support/must';
import { labelToKeyword } from '../../src/domain/flags';

const s = useImapSession();
const mailbox = 'alice@sandbox.test';

/** The STORE just made reached the vendor as one request: one flag command and one label command. */
function expectOneFlagAndOneLabelCommand(): void {
  const stats = s.h.sandbox.stats(mailbox);
  expect(stats.commands.flag).toBe(1);
  expect(stats.commands.label).toBe(1);
  expect(stats.requests).toBe(1);
}

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

  // one flag command (the unstarred two) and one label command adding both keywords
  expectOneFlagAndOneLabelCommand();
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

test('a STORE whose messages each need a different change sends one flag command and one label command, and each message ends as asked', async () => {
  await s.client.mailboxOpen('INBOX');
  const picked = (await vendorFolder(s.h.sandbox, 'INBOX')).slice(-3);
  const uids = await Promise.all(
    picked.map(
      async (m) => must(await s.client.search({ header: { 'message-id': m.message_id } }, { uid: true }), 'SEARCH')[0],
    ),
  );
  // a starred read one, an unread one, a starred unread one, each with a keyword of its own:
  // FLAGS (\Seen Gamma) is then a different change for each
  const before = [['\\Seen', '\\Flagged', 'Old1'], [], ['\\Flagged', 'Old2']];
  for (const [i, uid] of uids.entries())
    expect(await s.client.messageFlagsSet(String(uid), before[i], { uid: true })).toBe(true);
  const set = await vendorFolder(s.h.sandbox, 'INBOX');

  s.h.sandbox.resetStats();
  expect(await s.client.messageFlagsSet(uids.join(','), ['\\Seen', 'Gamma'], { uid: true })).toBe(true);

  expectOneFlagAndOneLabelCommand();
  const after = await vendorFolder(s.h.sandbox, 'INBOX');
  for (const m of picked) {
    const was = must(
      set.find((v) => v.message_uid === m.message_uid),
      'the message',
    );
    const now = must(
      after.find((v) => v.message_uid === m.message_uid),
      'the message',
    );
    expect(now.is_read).toBe(true);
    expect(now.is_starred).toBe(false);
    expect(now.is_important).toBe(was.is_important);
    // labels that are keywords give way to Gamma; those FLAGS cannot carry stay
    expect([...now.labels].sort()).toEqual([...was.labels.filter((l) => labelToKeyword(l) === null), 'Gamma'].sort());
  }
});

test('a keyword added to messages of which one carries it in another spelling leaves that one as it was', async () => {
  await s.client.mailboxOpen('INBOX');
  const picked = (await vendorFolder(s.h.sandbox, 'INBOX')).slice(-6, -4);
  const uids = await Promise.all(
    picked.map(
      async (m) => must(await s.client.search({ header: { 'message-id': m.message_id } }, { uid: true }), 'SEARCH')[0],
    ),
  );
  expect(await s.client.messageFlagsAdd(String(uids[0]), ['delta'], { uid: true })).toBe(true);

  expect(await s.client.messageFlagsAdd(uids.join(','), ['Delta', 'Epsilon'], { uid: true })).toBe(true);

  const after = await vendorFolder(s.h.sandbox, 'INBOX');
  const labels = (i: number) =>
    must(
      after.find((v) => v.message_uid === picked[i].message_uid),
      'the message',
    ).labels;
  // keywords match without letter case (RFC 3501): the first has it already
  expect(labels(0)).toContain('delta');
  expect(labels(0)).not.toContain('Delta');
  expect(labels(0)).toContain('Epsilon');
  expect(labels(1)).toEqual(expect.arrayContaining(['Delta', 'Epsilon']));
});
