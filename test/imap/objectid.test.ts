import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, vendorFolder, mailbox, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';
import { status, untagged } from '../support/conformance';

/**
 * OBJECTID (RFC 8474): EMAILID names a vendor message wherever it shows (its folder and its
 * label views), THREADID its vendor thread, MAILBOXID a folder; all stay the same after a
 * restart. Dovecot 2.3 has no OBJECTID, so these are checked against the vendor's own ids.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 30, seed: 11 } });
});

afterAll(async () => {
  await h?.close();
});

interface Shown {
  uid: number;
  emailId: string;
  threadId: string;
  messageId: string;
}

/** EMAILID, THREADID and Message-ID of every message of the selected folder. */
async function shown(s: RawSession): Promise<Shown[]> {
  const answer = await s.run('UID FETCH 1:* (EMAILID THREADID BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])');
  expect(status(answer)).toMatch(/^OK/);
  return [
    ...answer.matchAll(/UID (\d+)[^\r\n]*?EMAILID \(([\w-]+)\) THREADID (\(([\w-]+)\)|NIL)[^{]*\{\d+\}\r\n([^\r\n]*)/g),
  ].map((m) => ({
    uid: Number(m[1]),
    emailId: m[2],
    threadId: m[4] ?? 'NIL',
    messageId: m[5].replace(/^Message-ID:\s*/i, ''),
  }));
}

const session = () => rawSession(h.bridge.ports.imap, mailbox, h.password);

const searchHits = (answer: string) => untagged(answer)[0].split(' ').slice(1).map(Number);

test('OBJECTID is advertised; FETCH (EMAILID THREADID) follows the vendor message and thread ids', async () => {
  const s = await session();
  expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bOBJECTID\b/m);
  await s.run('EXAMINE INBOX');
  const inbox = await shown(s);
  const vendor = new Map((await vendorFolder(h.sandbox, 'INBOX')).map((m) => [m.message_id, m]));
  expect(inbox.length).toBe(vendor.size);

  // one EMAILID per vendor message, one THREADID per vendor thread
  expect(new Set(inbox.map((m) => m.emailId)).size).toBe(inbox.length);
  const threadOf = (m: Shown) => vendor.get(m.messageId)?.thread_id;
  for (const a of inbox)
    for (const b of inbox) expect(a.threadId === b.threadId, `${a.uid} ${b.uid}`).toBe(threadOf(a) === threadOf(b));
  // the corpus has threads of several messages: the check above compared some equal ids
  expect(new Set(inbox.map(threadOf)).size).toBeLessThan(inbox.length);

  // a labelled message shows the same ids in its label view
  const labelled = inbox.find((m) => (vendor.get(m.messageId)?.labels ?? []).some((l) => /^\w+$/.test(l)));
  expect(labelled).toBeDefined();
  const label = vendor.get(labelled!.messageId)!.labels.find((l) => /^\w+$/.test(l));
  await s.run(`EXAMINE Labels/${label}`);
  const inView = (await shown(s)).find((m) => m.messageId === labelled!.messageId);
  expect(inView).toMatchObject({ emailId: labelled!.emailId, threadId: labelled!.threadId });
  s.close();
});

test('SEARCH EMAILID and THREADID, alone, negated and in OR', async () => {
  const s = await session();
  await s.run('EXAMINE INBOX');
  const inbox = await shown(s);
  const [first, second] = inbox;
  expect(searchHits(await s.run(`UID SEARCH EMAILID ${first.emailId}`))).toEqual([first.uid]);
  const thread = inbox.filter((m) => m.threadId === first.threadId).map((m) => m.uid);
  expect(searchHits(await s.run(`UID SEARCH THREADID ${first.threadId}`))).toEqual(thread);
  expect(searchHits(await s.run(`UID SEARCH NOT EMAILID ${first.emailId}`))).toEqual(
    inbox.filter((m) => m !== first).map((m) => m.uid),
  );
  expect(searchHits(await s.run(`UID SEARCH OR EMAILID ${first.emailId} EMAILID ${second.emailId}`))).toEqual([
    first.uid,
    second.uid,
  ]);
  expect(searchHits(await s.run('UID SEARCH EMAILID Mnothing'))).toEqual([]);
  s.close();
});

test('MAILBOXID: in SELECT and STATUS, one per folder, the same after a restart; EMAILID too', async () => {
  const ids = async () => {
    const s = await session();
    const selected = await s.run('SELECT INBOX');
    const fromSelect = /^\* OK \[MAILBOXID \(([\w-]+)\)\]/m.exec(selected)?.[1];
    const fromStatus = /MAILBOXID \(([\w-]+)\)/.exec(await s.run('STATUS INBOX (MAILBOXID)'))?.[1];
    const drafts = /MAILBOXID \(([\w-]+)\)/.exec(await s.run('STATUS Drafts (MESSAGES MAILBOXID)'))?.[1];
    const emails = (await shown(s)).map((m) => m.emailId);
    s.close();
    return { fromSelect, fromStatus, drafts, emails };
  };
  const before = await ids();
  expect(before.fromSelect).toMatch(/^[\w-]{1,255}$/);
  expect(before.fromStatus).toBe(before.fromSelect);
  expect(before.drafts).toMatch(/^[\w-]{1,255}$/);
  expect(before.drafts).not.toBe(before.fromSelect);
  await h.restart();
  expect(await ids()).toEqual(before);
});

test('a draft, which the vendor does not hold, is a thread of its own', async () => {
  const s = await session();
  const draft =
    'From: Ann <ann@example.test>\r\nSubject: objectid\r\nMessage-ID: <objectid@example.test>\r\n\r\nhi\r\n';
  expect(status(await s.append('Drafts', draft))).toMatch(/^OK/);
  await s.run('EXAMINE Drafts');
  const drafts = await shown(s);
  const mine = drafts.find((m) => m.messageId === '<objectid@example.test>');
  expect(mine?.threadId).toMatch(/^[\w-]+$/);
  expect(drafts.filter((m) => m.threadId === mine?.threadId)).toEqual([mine]);
  expect(searchHits(await s.run(`UID SEARCH THREADID ${mine?.threadId}`))).toEqual([mine?.uid]);
  s.close();
});
