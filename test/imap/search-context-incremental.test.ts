import { expect, test, vi } from 'vitest';
import { control, mailbox, vendorFolder } from '../support/bridge-harness';
import { status, untagged, useConformance } from '../support/conformance';
import { ManualClock } from '../support/manual-clock';
import type { RawSession } from '../support/raw-session';
import { MailboxClient } from '../../src/upstream/mailbox-client';

/**
 * RFC 5267 4.3 contexts are kept up to date incrementally: what a content term (BODY, TEXT,
 * SUBJECT, ...) says of a UID never changes, so a change of flags is answered from what the
 * context learnt, without asking the vendor again.
 */

const c = useConformance({ sandbox: { messages: 6 }, vendorClock: new ManualClock() });

function inject(subject: string, text: string): Promise<unknown> {
  return control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject, text },
  });
}

async function arrive(s: RawSession, subject: string, text: string): Promise<number> {
  await inject(subject, text);
  await c.h.bridge.pollers[0].tick();
  await s.run('NOOP');
  const found = /\* SEARCH (\d+)/.exec(await s.run(`UID SEARCH SUBJECT "${subject}"`));
  return Number(found?.[1]);
}

/** The tag of a command's answer. */
function tagOf(answer: string): string {
  return /^(t\d+) (?:OK|NO|BAD)/m.exec(answer)?.[1] ?? `no tagged answer in: ${answer}`;
}

test('a flag change makes no vendor request for a context with a BODY term', async () => {
  const s = await c.session('INBOX');
  const uid = await arrive(s, 'Kept context one', 'the word quokkaphant is in this body');
  const started = await s.run('UID SEARCH RETURN (ALL UPDATE) BODY "quokkaphant" UNFLAGGED');
  const tag = tagOf(started);
  expect(started).toContain(`* ESEARCH (TAG "${tag}") UID ALL ${uid}`);

  c.h.sandbox.resetStats();
  const stored = await s.run(`UID STORE ${uid} +FLAGS.SILENT (\\Flagged)`);
  expect(status(stored)).toMatch(/^OK/);
  expect(stored).toContain(`* ESEARCH (TAG "${tag}") UID REMOVEFROM (0 ${uid})`);
  const stats = c.h.sandbox.stats(mailbox);
  // the STORE's own flag request, nothing for the context
  expect(stats.commands).toEqual({ flag: 1 });
  expect(stats.requests).toBe(1);
  s.close();
});

test("a poll's flag change and new mail make no vendor search for a context with a BODY term", async () => {
  const s = await c.session('INBOX');
  const uid = await arrive(s, 'Kept context two', 'a wombatross walks here');
  const tag = tagOf(await s.run('UID SEARCH RETURN (UPDATE) BODY "wombatross" SEEN'));
  const [kept] = (await vendorFolder(c.h.sandbox, 'INBOX')).filter((m) => m.subject === 'Kept context two');

  c.h.sandbox.resetStats();
  await control(c.h.sandbox, 'POST', '/flags', { mailbox, message_uid: kept.message_uid, is_read: true });
  await inject('Kept context three', 'another wombatross');
  await c.h.bridge.pollers[0].tick();
  const noop = await s.run('NOOP');
  expect(noop).toContain(`* ESEARCH (TAG "${tag}") UID ADDTO (0 ${uid})`);
  expect(c.h.sandbox.stats(mailbox).commands.search ?? 0).toBe(0);
  // the new message is unread: it joins once read
  const fresh = Number(/\* SEARCH (\d+)/.exec(await s.run('UID SEARCH SUBJECT "Kept context three"'))?.[1]);
  expect(await s.run(`UID STORE ${fresh} +FLAGS.SILENT (\\Seen)`)).toContain(
    `* ESEARCH (TAG "${tag}") UID ADDTO (0 ${fresh})`,
  );
  expect(c.h.sandbox.stats(mailbox).commands.search ?? 0).toBe(0);
  s.close();
});

test("many new messages at once go to the vendor's search first, in the poll lane, once per term", async () => {
  const s = await c.session('INBOX');
  const tag = tagOf(await s.run('UID SEARCH RETURN (UPDATE) OR BODY "platypug" TEXT "narwhalf"'));
  for (let i = 0; i < 60; i++)
    await inject(`Bulk ${i}`, i % 3 === 0 ? 'a platypug' : i % 3 === 1 ? 'a narwhalf' : 'nothing much');
  const search = vi.spyOn(MailboxClient.prototype, 'search');
  await c.h.bridge.pollers[0].tick();
  const added = untagged(await s.run('NOOP')).find((l) => l.startsWith(`ESEARCH (TAG "${tag}")`));
  const expected = /\* SEARCH ([\d ]+)/.exec(await s.run('UID SEARCH OR BODY "platypug" TEXT "narwhalf"'))?.[1];
  expect(expected?.split(' ')).toHaveLength(40);
  expect(added).toBe(`ESEARCH (TAG "${tag}") UID ADDTO (0 ${compact(expected ?? '')})`);
  // the context's two (the full UID SEARCH after it asked in the content lane)
  expect(search.mock.calls.slice(0, 2).map((call) => call[1])).toEqual(['poll', 'poll']);
  expect(search.mock.calls.slice(2).map((call) => call[1])).toEqual(['content', 'content']);
  search.mockRestore();
  s.close();
});

/** UIDs ascending as a sequence set, as the server writes them. */
function compact(uids: string): string {
  const runs: number[][] = [];
  for (const uid of uids.split(' ').map(Number)) {
    const last = runs.at(-1);
    if (last && last[1] === uid - 1) last[1] = uid;
    else runs.push([uid, uid]);
  }
  return runs.map(([from, to]) => (from === to ? `${from}` : `${from}:${to}`)).join(',');
}
