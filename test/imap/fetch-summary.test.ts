import path from 'node:path';
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { compileSummary, createIndexer } from '../../src/mime';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/**
 * A metadata FETCH copies ENVELOPE/BODYSTRUCTURE as text compiled when the message was
 * described (from the composed message, attachments sized from size_bytes). They must be what
 * imap-core makes of the bytes BODY[] actually serves, attachments downloaded, in plain
 * sessions and in UTF8=ACCEPT ones, for every message. A message the cache lacks is described
 * again (vendor messages from the vendor, drafts from their own bytes) and answered the same.
 */

const indexer = createIndexer();

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 400 } });
});

afterAll(async () => {
  await h?.close();
});

/** Every INBOX message's served bytes, by UID, through imapflow (attachments included). */
async function servedMessages(): Promise<Map<number, Buffer>> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: h.bridge.ports.imap,
    secure: false,
    doSTARTTLS: false,
    auth: { user: mailbox, pass: h.password },
    logger: false,
  });
  await client.connect();
  try {
    await client.mailboxOpen('INBOX');
    const out = new Map<number, Buffer>();
    for await (const m of client.fetch('1:*', { uid: true, source: true }, { uid: true }))
      out.set(m.uid, m.source as Buffer);
    return out;
  } finally {
    await client.logout();
  }
}

/** The FETCH answers imap-core gives for ENVELOPE and BODYSTRUCTURE of these bytes. */
function expectedAnswers(served: Map<number, Buffer>, utf8: boolean): string {
  return [...served]
    .sort(([a], [b]) => a - b)
    .map(([, bytes], i) => {
      const tree = indexer.parseMimeTree(bytes);
      const compiled = compileSummary(indexer.getEnvelope(tree), indexer.getBodyStructure(tree));
      const { envelope, bodystructure } = (utf8 && compiled.utf8) || compiled;
      return `* ${i + 1} FETCH (ENVELOPE ${envelope} BODYSTRUCTURE ${bodystructure})\r\n`;
    })
    .join('');
}

const untagged = (answer: string) => answer.replace(/^t\d+ OK.*\r\n/m, '');

test.each([
  ['a plain session', false],
  ['a UTF8=ACCEPT session', true],
])('stored ENVELOPE and BODYSTRUCTURE are what the served bytes give, in %s', async (_name, utf8) => {
  const served = await servedMessages();
  expect(served.size).toBeGreaterThan(200);
  const session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  try {
    if (utf8) expect(await session.run('ENABLE UTF8=ACCEPT')).toMatch(/ENABLED UTF8=ACCEPT/);
    await session.run('EXAMINE INBOX');
    const answer = await session.run('FETCH 1:* (ENVELOPE BODYSTRUCTURE)');
    expect(untagged(answer)).toBe(expectedAnswers(served, utf8));
    // non-ASCII words are MIME-encoded for plain sessions only
    expect(/=\?utf-8\?/i.test(answer)).toBe(!utf8);
  } finally {
    session.close();
  }
});

test('messages missing from the cache (older version, lost file) are described again, answered the same', async () => {
  const session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  const db = new Database(path.join(h.stateDir, 'mailbridge.db'));
  try {
    const draft =
      'From: alice@sandbox.test\r\nSubject: unsent =?utf-8?q?d=C3=A9j=C3=A0?=\r\n' +
      'Message-ID: <draft-1@local>\r\n\r\nnot sent yet\r\n';
    expect(await session.append('Drafts', draft)).toMatch(/OK \[APPENDUID/);
    const query = 'UID FETCH 1:* (ENVELOPE BODYSTRUCTURE RFC822.SIZE BODY.PEEK[HEADER.FIELDS (SUBJECT)] BODY.PEEK[1])';
    const answers = async () => {
      const out: string[] = [];
      for (const folder of ['INBOX', 'Drafts']) {
        await session.run(`EXAMINE ${folder}`);
        out.push(untagged(await session.run(query)));
      }
      return out;
    };
    const before = await answers();
    expect(before[1]).toContain('not sent yet');
    db.prepare('DELETE FROM message_cache').run();
    expect(await answers()).toEqual(before);
    // every message of both folders is cached again, the draft included
    const count = (join: string, folder: string) =>
      (
        db
          .prepare(`SELECT count(*) AS n FROM messages m ${join} JOIN folders f ON f.id = m.folder_id WHERE f.name = ?`)
          .get(folder) as { n: number }
      ).n;
    const cachedJoin = 'JOIN message_cache c ON c.message_uid = m.message_uid';
    expect(count(cachedJoin, 'INBOX')).toBeGreaterThan(200);
    for (const folder of ['INBOX', 'Drafts']) expect(count(cachedJoin, folder)).toBe(count('', folder));
    expect(count(`${cachedJoin} AND c.message_uid LIKE 'local:%'`, 'Drafts')).toBe(1);
  } finally {
    db.close();
    session.close();
  }
});
