import { afterAll, beforeAll, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';
import { attachmentBytes, injectAttachedMessage } from '../support/attached-message';

/**
 * CATENATE (RFC 4469) of parts of a vendor message whose attachment the bridge has not read:
 * its bytes are fetched from the vendor as FETCH fetches them, and the message built holds
 * what FETCH answers for the same sections. No message grows past the APPEND size limit
 * (NO [TOOBIG], nothing stored, however many URL parts), and a URL the bridge cannot read as a
 * message part is NO [BADURL url]. rfc4469-catenate.test.ts compares the answers with Dovecot's.
 */

/** 40,000 bytes: the attachment, about 54 KB in base64. */
const bytes = attachmentBytes;
const limit = 150_000;

let h: Harness;
let imap: RawSession;
let uid: string;
/** A message whose attachment alone passes the limit. */
let large: string;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 3 }, config: { maxMessageBytes: limit } });
  const message_id = await injectAttachedMessage(h, bytes);
  const injected = await control<{ message_id: string }>(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: {
      from: 'Bob <bob@example.com>',
      subject: 'Too large',
      text: 'Attached.',
      attachments: [
        {
          filename: 'large.bin',
          contentType: 'application/octet-stream',
          content: Buffer.alloc(200_000, 1).toString('base64'),
        },
      ],
    },
  });
  imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  await imap.run('EXAMINE INBOX');
  uid = /SEARCH (\d+)/.exec(await imap.run(`UID SEARCH HEADER Message-ID "${message_id}"`))?.[1] ?? '';
  expect(uid).not.toBe('');
  large = /SEARCH (\d+)/.exec(await imap.run(`UID SEARCH HEADER Message-ID "${injected.message_id}"`))?.[1] ?? '';
  expect(large).not.toBe('');
  await imap.run('UNSELECT');
});

afterAll(async () => {
  imap?.close();
  await h?.close();
});

/** The bytes of the one literal of a FETCH answer. */
function literal(answer: string): string {
  const m = /\{(\d+)\}\r\n/.exec(answer);
  if (!m) throw new Error(`no literal in ${answer.slice(0, 200)}`);
  const start = m.index + m[0].length;
  return answer.slice(start, start + Number(m[1]));
}

/** FETCH of one item of the UID's message, from INBOX. */
async function fetched(item: string): Promise<string> {
  await imap.run('EXAMINE INBOX');
  const answer = await imap.run(`UID FETCH ${uid} (${item})`);
  await imap.run('UNSELECT');
  return literal(answer);
}

const draftCount = async () => Number(/MESSAGES (\d+)/.exec(await imap.run('STATUS Drafts (MESSAGES)'))?.[1]);

test('parts of a message read from the vendor: the built message is what FETCH answers for them', async () => {
  const raw = () => h.sandbox.stats(mailbox).rawDownloads;
  const before = raw();
  const text = 'From: Ann <ann@example.test>\r\nSubject: forwarded figures\r\n\r\n';
  const answer = await imap.run(
    `APPEND Drafts CATENATE (TEXT {${text.length}+}\r\n${text} URL "/INBOX/;UID=${uid}/;SECTION=2" URL "/INBOX/;UID=${uid}/;SECTION=2/;PARTIAL=1000.60" URL "/INBOX/;UID=${uid}/;SECTION=HEADER.FIELDS%20(SUBJECT)")`,
  );
  // the attachment was not read before: the CATENATE read it from the vendor
  expect(raw()).toBeGreaterThan(before);
  const built = /APPENDUID \d+ (\d+)/.exec(answer)?.[1];
  expect(built, answer).toBeDefined();
  const expected =
    text +
    (await fetched('BODY.PEEK[2]')) +
    (await fetched('BODY.PEEK[2]<1000.60>')) +
    (await fetched('BODY.PEEK[HEADER.FIELDS (SUBJECT)]'));
  expect(expected.length).toBeGreaterThan(54_000);
  await imap.run('EXAMINE Drafts');
  expect(literal(await imap.run(`UID FETCH ${built} (BODY.PEEK[])`))).toBe(expected);
  await imap.run('UNSELECT');
});

test('past the APPEND size limit: NO [TOOBIG], nothing stored, however many parts', async () => {
  const drafts = await draftCount();
  const whole = `URL "/INBOX/;UID=${uid}"`;
  // three copies of a 55 KB message pass the 150 KB limit at the third
  expect(await imap.run(`APPEND Drafts CATENATE (${whole} ${whole} ${whole})`)).toMatch(/^t\d+ NO \[TOOBIG\]/m);
  // as do 1,000 small parts (a line of 45 KB): each is measured before it is read
  const headers = Array.from({ length: 1_000 }, () => `URL "/INBOX/;UID=${uid}/;SECTION=HEADER"`).join(' ');
  expect(await imap.run(`APPEND Drafts CATENATE (${headers})`)).toMatch(/^t\d+ NO \[TOOBIG\]/m);
  // with MULTIAPPEND the message that fits is not stored either
  expect(await imap.run(`APPEND Drafts CATENATE (${whole}) CATENATE (${whole} ${whole} ${whole})`)).toMatch(
    /^t\d+ NO \[TOOBIG\]/m,
  );
  expect(await draftCount()).toBe(drafts);
  // two copies fit
  expect(await imap.run(`APPEND Drafts CATENATE (${whole} ${whole})`)).toMatch(/^t\d+ OK \[APPENDUID/m);
  expect(await draftCount()).toBe(drafts + 1);
});

test('a part past the limit is refused before any of its bytes are read from the vendor', async () => {
  const before = h.sandbox.stats(mailbox).rawDownloads;
  expect(await imap.run(`APPEND Drafts CATENATE (URL "/INBOX/;UID=${large}/;SECTION=2")`)).toMatch(
    /^t\d+ NO \[TOOBIG\]/m,
  );
  expect(h.sandbox.stats(mailbox).rawDownloads).toBe(before);
});

test('sections that are not RFC 3501 section specs, and malformed URLs: NO [BADURL url]', async () => {
  const drafts = await draftCount();
  for (const url of [
    `/INBOX/;UID=${uid}/;SECTION=FOO`,
    `/INBOX/;UID=${uid}/;SECTION=MIME`,
    `/INBOX/;UID=${uid}/;SECTION=HEADER.FIELDS`,
    `/INBOX/;UID=${uid}/;SECTION=HEADER.FIELDS%20()`,
    `/INB%ZZOX/;UID=${uid}`,
    `/INBOX/;UID=99999999999`,
    `/INBOX;UIDVALIDITY=0/;UID=${uid}`,
  ]) {
    expect(await imap.run(`APPEND Drafts CATENATE (URL "${url}")`)).toMatch(
      new RegExp(`^t\\d+ NO \\[BADURL ${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]`, 'm'),
    );
  }
  expect(await draftCount()).toBe(drafts);
});

test('into a folder no APPEND can fill: NO [CANNOT] before any URL is read', async () => {
  const answer = await imap.run(`APPEND INBOX CATENATE (URL "/INBOX/;UID=${uid}/;SECTION=1" URL "/INBOX/;UID=999999")`);
  expect(answer).toMatch(/^t\d+ NO \[CANNOT\] The mail vendor API cannot store messages in INBOX/m);
});
