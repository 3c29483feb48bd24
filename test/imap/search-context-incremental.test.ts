import { expect, test } from 'vitest';
import { control, mailbox } from '../support/bridge-harness';
import { status, useConformance } from '../support/conformance';
import type { RawSession } from '../support/raw-session';

/**
 * RFC 5267 4.3 contexts are kept up to date incrementally: what a content term (BODY, TEXT,
 * SUBJECT, ...) says of a UID never changes, so a change of flags is answered from what the
 * context learnt, without asking the vendor again.
 */

const c = useConformance({ sandbox: { messages: 6 } });

async function arrive(s: RawSession, subject: string, text: string): Promise<number> {
  await control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject, text },
  });
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
