import { afterAll, beforeAll, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * SEARCH BODY/TEXT on vendor messages: the vendor's search (A4) is asked for a part of the
 * term every match contains, and its hits are checked on the bridge's copy, so a hit that
 * only shares that part is dropped, and casemap matches the vendor would not make as typed
 * (accents written decomposed) are found. The conformance suite compares the same on drafts
 * with Dovecot (test/imap/conformance/rfc3501-search-i18n.test.ts).
 */

let h: Harness;
let imap: RawSession;
const uids: Record<string, string> = {};

const literal = (text: string) => `{${Buffer.byteLength(text)}+}\r\n${text}`;
const hits = (answer: string) => /^\* SEARCH(.*)$/m.exec(answer)?.[1].trim().split(' ').filter(Boolean) ?? [];

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 3 } });
  const bodies = {
    handover: 'Die Übergabe ist am Montag.',
    lookalike: 'Die Abergabe ist keine Übernahme.',
    decomposed: 'Rendez-vous: re\u0301union a\u0300 Ménilmontant.',
  };
  for (const [name, text] of Object.entries(bodies)) {
    const { message_id } = await control<{ message_id: string }>(h.sandbox, 'POST', '/inject', {
      mailbox,
      message: { from: 'Bob <bob@example.com>', subject: `note ${name}`, text },
    });
    uids[name] = message_id;
  }
  imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  await imap.run('EXAMINE INBOX');
  for (const [name, messageId] of Object.entries(uids))
    uids[name] = hits(await imap.run(`UID SEARCH HEADER Message-ID "${messageId}"`))[0];
  expect(Object.values(uids).every(Boolean)).toBe(true);
});

afterAll(async () => {
  imap?.close();
  await h?.close();
});

test('the vendor hits are checked on the stored text: a hit sharing only part of the term is dropped', async () => {
  const before = h.sandbox.stats(mailbox).commands.search ?? 0;
  expect(hits(await imap.run(`UID SEARCH BODY ${literal('übergabe')}`))).toEqual([uids.handover]);
  expect(hits(await imap.run(`UID SEARCH TEXT ${literal('ÜBERGABE')}`))).toEqual([uids.handover]);
  expect(h.sandbox.stats(mailbox).commands.search).toBe(before + 2);
});

test('a match the vendor cannot make as typed is found: a composed accent against a decomposed one', async () => {
  expect(hits(await imap.run(`UID SEARCH BODY ${literal('Réunion')}`))).toEqual([uids.decomposed]);
  expect(hits(await imap.run(`UID SEARCH BODY ${literal('À MÉNILMONTANT')}`))).toEqual([uids.decomposed]);
});

test('BODY does not match the subject the vendor also searches', async () => {
  expect(hits(await imap.run('UID SEARCH BODY lookalike'))).toEqual([]);
  expect(hits(await imap.run('UID SEARCH TEXT lookalike'))).toEqual([uids.lookalike]);
});
