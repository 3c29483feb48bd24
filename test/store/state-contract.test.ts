import fs from 'node:fs';
import { accountId } from '../../src/model/account-id';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/store';
import { messageKeys } from '../../src/mime/message-keys';
import { messageKeyNames } from '../../src/store/message-keys-table';
import { openPgState } from '../../src/store/pg/pg-state';
import { openSqliteState } from '../../src/store/sqlite-state';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * What the domain relies on from a state store, run against both implementations: state
 * survives closing and opening again, UIDs are never given twice, writes are durable before
 * afterCommit callbacks run.
 */

const A = 'me@example.com';
const secretKey = Buffer.alloc(32, 7).toString('base64');
const record = (messageUid: string, size: number) => ({
  messageUid,
  size,
  summary: JSON.stringify({ envelope: `(NIL "${messageUid}")`, bodystructure: '("TEXT" "PLAIN")' }),
  header: JSON.stringify([`Subject: ${messageUid}`]),
  message: JSON.stringify({ message_uid: messageUid }),
  keys: keysOf(messageUid),
});

/** Keys with a value of every column type: a date, a reply's subject, ids, a missing Cc. */
const keysOf = (messageUid: string) =>
  messageKeys([
    `Subject: Re: =?UTF-8?Q?=C3=9Cbergabe?= ${messageUid}`,
    'Date: Mon, 2 Jan 2023 23:30 -0500',
    'From: Jürgen <j@example.de>',
    'To: Team: a@x, b@x;',
    `Message-ID: <${messageUid}@x>`,
    'References: <a@x> <b@x>',
  ]);

let postgres: Postgres;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-contract-'));
let databases = 0;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

interface Backend {
  name: string;
  /** A fresh place for state; `open` opens the state kept there, again and again. */
  fresh(): Promise<() => Promise<StateStore>>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    fresh: async () => {
      const dir = fs.mkdtempSync(path.join(root, 'sqlite-'));
      return async () => openSqliteState(dir);
    },
  },
  {
    name: 'PostgreSQL',
    fresh: async () => {
      const connection = await postgres.createDatabase(`contract${databases++}`);
      return () => openPgState({ connection, secretKey });
    },
  },
];

describe.each(backends)('state store contract: $name', (backend) => {
  it('keeps UIDs, UIDVALIDITY, MODSEQs, flags and listed folders across close and open', async () => {
    const open = await backend.fresh();
    let s = await open();
    s.mail.assignUids(A, 'INBOX', ['a', 'b', { messageUid: 'c', flags: ['\\Seen'], idate: new Date(1e12) }]);
    const modseq = s.mail.setFlags(A, 'INBOX', [2], ['\\Flagged', '$Work']);
    expect(s.mail.expunge(A, 'INBOX', ['a']).map((r) => r.uid)).toEqual([1]);
    s.mail.markListed(A, 'INBOX');
    s.mail.uidNextAtLeast(A, 'Archive', 9);
    const before = s.mail.folderState(A, 'INBOX');
    await s.committed();
    await s.close();

    s = await open();
    expect(s.mail.folderState(A, 'INBOX')).toEqual(before);
    expect(before).toMatchObject({ uidNext: 4, count: 2, unseen: 1, highestModseq: modseq + 1 });
    expect(s.mail.listMessages(A, 'INBOX').map((r) => [r.uid, r.messageUid, [...r.flags], r.modseq])).toEqual([
      [2, 'b', ['\\Flagged', '$Work'], modseq],
      [3, 'c', ['\\Seen'], 2],
    ]);
    expect(s.mail.listMessages(A, 'INBOX')[1].idate).toBe(1e12);
    expect(s.mail.listedFolders(A)).toEqual(['INBOX']);
    expect(s.mail.folderState(A, 'Archive').uidNext).toBe(9);
    // new messages go after every UID given before, expunged ones included
    expect(s.mail.assignUids(A, 'INBOX', ['b', 'a', 'd']).map((r) => [r.messageUid, r.uid])).toEqual([
      ['a', 4],
      ['d', 5],
    ]);
    await s.close();
  });

  it('gives a folder made later a higher UIDVALIDITY than any before it', async () => {
    const open = await backend.fresh();
    let s = await open();
    const first = s.mail.folderState(A, 'One').uidValidity;
    await s.close();
    s = await open();
    expect(s.mail.folderState(A, 'Two').uidValidity).toBeGreaterThan(first);
    await s.close();
  });

  it('numbers a retired folder afresh: a greater UIDVALIDITY, UIDs from 1, MODSEQs still growing, after open too', async () => {
    const open = await backend.fresh();
    let s = await open();
    s.mail.assignUids(A, 'Labels/x', ['a', 'b']);
    s.mail.expunge(A, 'Labels/x', ['a']);
    s.mail.markListed(A, 'Labels/x');
    const old = s.mail.folderState(A, 'Labels/x');
    s.mail.retireFolder(A, 'Labels/x');
    const fresh = s.mail.folderState(A, 'Labels/x');
    expect(fresh.uidValidity).toBeGreaterThan(old.uidValidity);
    expect(fresh).toMatchObject({ uidNext: 1, count: 0, unseen: 0, highestModseq: old.highestModseq + 1 });
    expect(s.mail.wasListed(A, 'Labels/x')).toBe(false);
    expect(s.mail.vanishedSince(A, 'Labels/x', 0).uids).toEqual([]);
    expect(s.mail.assignUids(A, 'Labels/x', ['c']).map((r) => r.uid)).toEqual([1]);
    const renumbered = s.mail.folderState(A, 'Labels/x');
    await s.committed();
    await s.close();

    s = await open();
    expect(s.mail.folderState(A, 'Labels/x')).toEqual(renumbered);
    expect(s.mail.listMessages(A, 'Labels/x').map((r) => [r.uid, r.messageUid])).toEqual([[1, 'c']]);
    expect(s.mail.wasListed(A, 'Labels/x')).toBe(false);
    await s.close();
  });

  it('keeps cached messages, drafts, submissions and quarantine records', async () => {
    const open = await backend.fresh();
    let s = await open();
    s.mail.assignUids(A, 'INBOX', ['m1']);
    s.mail.putMetadataRecords(A, [record('m1', 120), record('gone', 5)]);
    expect(s.mail.pruneMetadata(A)).toBe(1);
    const draft = s.mail.local.add(A, Buffer.from('Subject: draft\r\n\r\nbody\r\n'));
    const dropped = s.mail.local.add(A, Buffer.from('Subject: other\r\n\r\n'));
    s.mail.local.remove(A, [dropped]);
    s.mail.local.recordSubmission(A, '<id@example.com>');
    s.quarantine.record({
      quarantineId: 'q1',
      account: accountId(A),
      recipient: 'x@example.net',
      subject: 'Hi',
      messageId: '<id@example.com>',
      heldAt: new Date(1000),
      expiresAt: new Date(2000),
    });
    s.quarantine.markReleased('q1', 'email-7');
    await s.committed();
    await s.close();

    s = await open();
    expect(s.mail.listMessages(A, 'INBOX')[0].size).toBe(120);
    expect([...s.mail.getSummaries(A, ['m1', 'gone']).keys()]).toEqual(['m1']);
    expect(s.mail.getHeaders(A, ['m1']).get('m1')).toEqual(['Subject: m1']);
    // the keys stored with the message, each read back as it was; those of a pruned message gone
    expect(s.mail.getMessageKeys(A, ['m1', 'gone'], messageKeyNames)).toEqual(new Map([['m1', keysOf('m1')]]));
    expect(s.mail.getMessageKeys(A, ['m1'], ['sentDate', 'replyOrForward'])).toEqual(
      new Map([['m1', { sentDate: Date.parse('2023-01-03T04:30:00Z'), replyOrForward: true }]]),
    );
    expect(s.mail.local.get(A, draft)?.raw.toString()).toBe('Subject: draft\r\n\r\nbody\r\n');
    expect(s.mail.local.get(A, dropped)).toBeNull();
    expect(s.mail.local.wasSubmitted(A, '<id@example.com>')).toBe(true);
    expect(s.quarantine.get('q1')).toMatchObject({ status: 'released', detail: 'email-7', heldAt: new Date(1000) });
    await s.close();
  });

  it('keeps the label folders a client created and the renames under way, until they are removed', async () => {
    const open = await backend.fresh();
    let s = await open();
    s.mail.local.putLabel(A, 'Projects', null);
    s.mail.local.putLabel(A, 'Été/2026', null);
    s.mail.local.putLabel(A, 'New name', 'Old name');
    s.mail.local.putLabel(A, 'Gone', null);
    s.mail.local.removeLabel(A, 'Gone');
    await s.committed();
    await s.close();

    s = await open();
    expect(s.mail.local.labels(A)).toEqual([
      { label: 'New name', renamedFrom: 'Old name' },
      { label: 'Projects', renamedFrom: null },
      { label: 'Été/2026', renamedFrom: null },
    ]);
    expect(s.mail.local.labels('other@example.com')).toEqual([]);
    await s.close();
  });

  it('keeps token pairs and bridge passwords; a removed mailbox stays removed', async () => {
    const open = await backend.fresh();
    let s = await open();
    await s.secrets.putTokens(A, { accessToken: 'at-1', refreshToken: 'rt-1' });
    const password = await s.secrets.setBridgePassword(A);
    await s.secrets.putTokens(A, { accessToken: 'at-2', refreshToken: 'rt-2' });
    await s.secrets.putTokens('b@example.com', { accessToken: 'at-b', refreshToken: 'rt-b' });
    await s.secrets.markNeedsNewTokens('b@example.com', 'refused');
    await s.close();

    s = await open();
    expect(s.secrets.get(A)).toMatchObject({ accessToken: 'at-2', refreshToken: 'rt-2' });
    expect(await s.secrets.verifyBridgePassword(A, password)).toBe(true);
    expect(await s.secrets.verifyBridgePassword(A, 'wrong')).toBe(false);
    expect(s.secrets.get('B@example.com')?.needsNewTokens).toBe('refused');
    expect(await s.secrets.remove('b@example.com')).toBe(true);
    await s.close();
    s = await open();
    expect(s.secrets.mailboxes()).toEqual([A]);
    await s.close();
  });

  it('runs afterCommit callbacks in order, once their writes are stored', async () => {
    const open = await backend.fresh();
    const s = await open();
    const seen: string[] = [];
    const stored: Array<Promise<string[]>> = [];
    for (const id of ['x', 'y']) {
      s.mail.atomically(() => s.mail.assignUids(A, 'INBOX', [id]));
      s.mail.afterCommit(() => {
        seen.push(id);
        // what a second opener (another node, a restart) finds from now on
        stored.push(
          open().then(async (other) => {
            const ids = other.mail.listMessages(A, 'INBOX').map((r) => r.messageUid);
            await other.close();
            return ids;
          }),
        );
      });
    }
    await s.committed();
    expect(seen).toEqual(['x', 'y']);
    const [afterX, afterY] = await Promise.all(stored);
    expect(afterX).toContain('x');
    expect(afterY).toEqual(['x', 'y']);
    await s.close();
  });

  it("tells a command's OK on the turn its changes are published, before any session's listener hears of them", async () => {
    const open = await backend.fresh();
    const s = await open();
    s.mail.assignUids(A, 'Quarantine', ['local:q:1']);
    s.mail.local.put(A, 'local:q:1', Buffer.from('held'));
    await s.committed();
    const turn = () => new Promise((next) => setImmediate(next));
    // the vendor's answer to the release comes on a later turn
    await turn();
    const seen: string[] = [];
    // a release in one turn: the EXPUNGE is stored and published once durable, then the held bytes are dropped
    s.mail.atomically(() => s.mail.expunge(A, 'Quarantine', ['local:q:1']));
    s.mail.afterCommit(() => {
      seen.push('published');
      // the journal wakes the sessions' listeners on the next turn (change-journal.ts)
      setImmediate(() => seen.push('listener'));
    });
    s.mail.local.remove(A, ['local:q:1']);
    await s.committed();
    seen.push('OK');
    await turn();
    expect(seen).toEqual(['published', 'OK', 'listener']);
    await s.close();
  });
});

describe('PostgreSQL state store', () => {
  it('seals secrets: no token or hash is readable in the database, and another key does not open them', async () => {
    const connection = await postgres.createDatabase('sealed');
    const s = await openPgState({ connection, secretKey });
    await s.secrets.putTokens(A, { accessToken: 'plain-access-token', refreshToken: 'plain-refresh-token' });
    await s.close();
    const client = new pg.Client(connection);
    await client.connect();
    const { rows } = await client.query<{ sealed: Buffer }>('SELECT sealed FROM secrets');
    await client.end();
    expect(rows).toHaveLength(1);
    expect(rows[0].sealed.toString('latin1')).not.toContain('plain-');
    const otherKey = Buffer.alloc(32, 9).toString('base64');
    await expect(openPgState({ connection, secretKey: otherKey })).rejects.toThrow(/do not open with state.secretKey/);
  });

  it('stores a committed write where a second node reads it', async () => {
    const connection = await postgres.createDatabase('two');
    const one = await openPgState({ connection, secretKey });
    one.mail.assignUids(A, 'INBOX', ['a', 'b']);
    await one.committed();
    const two = await openPgState({ connection, secretKey });
    expect(two.mail.listMessages(A, 'INBOX').map((r) => [r.uid, r.messageUid])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(two.mail.folderState(A, 'INBOX').uidValidity).toBe(one.mail.folderState(A, 'INBOX').uidValidity);
    await one.close();
    await two.close();
  });
});

it('PostgreSQL out of reach: nothing is answered as stored or published; back, the change is both', async () => {
  const { url } = await postgres.createDatabase('outage');
  const s = await openPgState({ connection: url, secretKey });
  s.mail.assignUids(A, 'INBOX', ['before']);
  await s.committed();
  postgres.pause();
  const published: string[] = [];
  try {
    s.mail.atomically(() => s.mail.assignUids(A, 'INBOX', ['during']));
    s.mail.afterCommit(() => published.push('during'));
    await expect(s.committed()).rejects.toThrow();
    expect(published).toEqual([]);
  } finally {
    postgres.resume();
  }
  // the next durability check (a client's next command, a node's next look) sends it again
  await s.committed();
  expect(published).toEqual(['during']);
  await s.close();
  const again = await openPgState({ connection: url, secretKey });
  expect(again.mail.listMessages(A, 'INBOX').map((r) => r.messageUid)).toEqual(['before', 'during']);
  await again.close();
});
