import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createIndexer, summaryBytes } from '../../src/mime';
import { cloneImapStructure } from '../support/imap-structure';
import type { FetchQueryItem } from '../../src/imap/fetch-query';
import { fetchLines, isLineQuery, type LineMessage } from '../../src/imap/fetch-line';
import { emailId, threadId } from '../../src/imap/object-ids';
import type { CoreSession } from '@mailbridge/imap-core';
import { sessionOf as typedSession } from '../../src/imap/engine-adapter';
import type { MessageRow, MessageSummary } from '../../src/store';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';
import { injectAttachedMessage } from '../support/attached-message';
import { wholeMessageInMemoryBytes } from '../../src/imap/fetch';
import { AttachmentStorage } from '../../src/mime/attachment-storage';

/**
 * Metadata FETCH responses are written as text (src/imap/fetch-line.ts). They must be the
 * bytes imap-core's formatResponse + compiler make of the same message, for every item the
 * text path answers, as the client spelled it, in plain and UTF8=ACCEPT sessions.
 */

// imap-core's own parts, as the server runs them (no typings of their own)
const load = createRequire(__filename);
const { IMAPConnection } = load('@mailbridge/imap-core/lib/imap-connection') as {
  IMAPConnection: {
    prototype: { formatResponse(this: unknown, ...args: unknown[]): unknown; announceKeywords(flags: unknown): void };
  };
};
const { getQueryResponse } = load('@mailbridge/imap-core/lib/imap-tools') as {
  getQueryResponse: CoreSession['getQueryResponse'];
};
const imapHandler = load('@mailbridge/imap-core/lib/handler/imap-handler') as {
  parser(line: string): unknown;
  compiler(response: unknown): string;
};
const fetchCommand = load('@mailbridge/imap-core/lib/commands/fetch') as {
  handler(this: unknown, command: unknown, callback: (err: unknown, res?: unknown) => void): void;
};

let h: Harness;
let rows: MessageRow[];
let summaries: Map<string, MessageSummary>;
/** ENVELOPE and BODYSTRUCTURE as imap-core's indexer makes them of each message's MIME tree. */
let metas: Map<string, { envelope: unknown[]; bodystructure: unknown[] }>;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 400 } });
  const view = h.bridge.accounts.get(mailbox)!;
  const folder = (await view.folder('INBOX'))!;
  await view.open(folder);
  rows = view.allRows(folder);
  const ids = rows.map((r) => r.messageUid);
  summaries = await view.summaries(ids);
  const indexer = createIndexer();
  metas = new Map(
    [...(await view.contents(ids))].map(([uid, c]) => [
      uid,
      { envelope: indexer.getEnvelope(c.mimeTree), bodystructure: indexer.getBodyStructure(c.mimeTree) },
    ]),
  );
});

afterAll(async () => {
  await h?.close();
});

/** The query imap-core's FETCH handler hands to onFetch for `command` (macros, implicit UID and MODSEQ, `original`). */
function queryOf(command: string, uidList: number[]): FetchQueryItem[] {
  let query: FetchQueryItem[] | undefined;
  const connection = {
    id: 'test',
    selected: { uidList, mailbox: 'INBOX', readOnly: true, condstoreEnabled: false },
    session: { user: { id: 'test' } },
    enableCondstore() {
      connection.selected.condstoreEnabled = true;
    },
    _server: {
      logger: { debug() {} },
      loggelf() {},
      onFetch: (_m: unknown, options: { query: FetchQueryItem[] }) => (query = options.query),
    },
  };
  fetchCommand.handler.call(connection, imapHandler.parser(`t1 ${command}`), (err) => {
    throw err ?? new Error(`${command} was refused`);
  });
  if (!query) throw new Error(`no query for ${command}`);
  return query;
}

/** Text as the bytes imap-core's composer writes of it ('binary': one byte a character), one character a byte. */
const onTheWire = (text: string) => Buffer.from(text, 'binary').toString('latin1');

/** The chunks the sessions of sessionOf were written, each as its bytes on the wire. */
const written: string[] = [];

/** A message's OBJECTIDs as fetch.ts gives them: some messages of no thread (NIL). */
function objectIds(row: MessageRow): ObjectIds {
  return {
    emailId: emailId(mailbox, row.messageUid),
    threadId: row.uid % 5 ? threadId(mailbox, `t${row.uid % 37}`) : null,
  };
}

type ObjectIds = Pick<LineMessage, 'emailId' | 'threadId'>;

/**
 * The bridge's line for each message: fetchLines' items through the session's writer (one
 * message a chunk), false when the writer left it out, undefined when imap-core's path answers
 * it; `recent`: the session sees the message as \Recent.
 */
function bridgeLines(
  core: CoreSession,
  query: FetchQueryItem[],
  utf8: boolean,
): (
  row: MessageRow,
  summary: MessageSummary | undefined,
  recent?: boolean,
  ids?: ObjectIds,
) => string | false | undefined {
  const session = typedSession(core);
  const items = fetchLines(session, query);
  const writer = session.untagged.fetchLines();
  return (row, summary, recent = false, ids = {}) => {
    const out = writer.begin(row.uid);
    if (!out) return false;
    if (!items(out, { row, summary: summary && summaryBytes(summary.compiled, utf8), recent, ...ids })) {
      writer.drop();
      return writer.flush() ? 'written though dropped' : undefined;
    }
    writer.end();
    void writer.flush();
    return written.pop() ?? 'nothing written';
  };
}

/** A session with imap-core's own formatResponse over `uidList`. */
function sessionOf(uidList: number[], utf8: boolean): CoreSession {
  const connection = {
    selected: { uidList, mailbox: 'INBOX' },
    announceKeywords: IMAPConnection.prototype.announceKeywords,
  };
  return {
    id: 'test',
    remoteAddress: '127.0.0.1',
    user: { id: 'test', username: mailbox },
    selected: connection.selected,
    // what the bridge writes, each chunk's text
    writeStream: {
      write: (chunk: unknown, done?: () => void) => {
        const { compiled } = chunk as { compiled: string | Buffer | Buffer[] };
        written.push(
          typeof compiled === 'string'
            ? onTheWire(compiled)
            : Buffer.concat(Array.isArray(compiled) ? compiled : [compiled]).toString('latin1'),
        );
        done?.();
        return true;
      },
    },
    formatResponse: (...args: unknown[]) => IMAPConnection.prototype.formatResponse.call(connection, ...args),
    announceKeywords: () => undefined,
    announceExpunged: () => undefined,
    getQueryResponse,
    isUTF8Enabled: () => utf8,
    earlierVanished: () => false,
    notifyMailbox: () => undefined,
    notifyMailboxName: () => undefined,
  };
}

/** imap-core's bytes for the message, its values built from the MIME metadata (no compiled summary involved). */
function imapCoreLine(session: CoreSession, query: FetchQueryItem[], row: MessageRow, utf8: boolean): string | false {
  const meta = metas.get(row.messageUid)!;
  const message = {
    uid: row.uid,
    modseq: row.modseq,
    flags: row.flags,
    idate: new Date(row.idate),
    size: row.size,
    envelope: cloneImapStructure(meta.envelope),
    bodystructure: cloneImapStructure(meta.bodystructure),
    ...objectIds(row),
  };
  const response = session.formatResponse('FETCH', row.uid, {
    query,
    values: session.getQueryResponse(query, message, { acceptUTF8Enabled: utf8 }),
  });
  return response ? onTheWire(imapHandler.compiler(response)) : false;
}

const lineCommands = [
  'UID FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE RFC822.SIZE)',
  'FETCH 1:* (flags uid)',
  'FETCH 1:* (Uid Flags Modseq Internaldate Rfc822.size Envelope Bodystructure)',
  'UID FETCH 1:* (MODSEQ INTERNALDATE)',
  'UID FETCH 1:* (FLAGS) (CHANGEDSINCE 1)',
  'FETCH 1:* (BODYSTRUCTURE)',
  'FETCH 1:* (ENVELOPE UID)',
  'FETCH 1:* ALL',
  'FETCH 1:* FAST',
  // imapflow's, on a server offering OBJECTID and CONDSTORE
  'UID FETCH 1:* (UID FLAGS BODYSTRUCTURE ENVELOPE RFC822.SIZE EMAILID MODSEQ)',
  'FETCH 1:* (ThreadId EmailId)',
];

/** Flags the corpus may not have: keywords, every system flag, none, and ones imap-core quotes or joins oddly. */
const flagSets = [
  [],
  ['\\Seen'],
  ['\\Answered', '\\Flagged', '\\Deleted', '\\Seen', '\\Draft', '\\Recent'],
  ['$Important', '$Forwarded', 'Junk', 'Projekt'],
  ['', 'a[', 'b', 'x<', 'y', ''],
  ['a b', 'x"y', 'ü', '\\', '\\*', '*', 'x]', '\x01', '日本', '%', '{1}', '(p)'],
];

test.each([
  ['a plain session', false],
  ['a UTF8=ACCEPT session', true],
])('each line is the bytes imap-core makes, in %s', (_name, utf8) => {
  // every corpus message as it is, and again with each flag set and a MODSEQ of 0, some \Recent
  const variants = rows.flatMap((row, i) => [
    { row, recent: i % 3 === 0 },
    { row: { ...row, flags: flagSets[i % flagSets.length], modseq: i % 7 ? row.modseq : 0 }, recent: i % 2 === 0 },
  ]);
  expect(variants.length).toBeGreaterThan(400);
  expect(new Set(rows.flatMap((r) => r.flags)).size).toBeGreaterThan(1);
  const uidList = rows.map((r) => r.uid);
  const session = sessionOf(uidList, utf8);
  let compared = 0;
  for (const command of lineCommands) {
    const query = queryOf(command, uidList);
    expect(isLineQuery(query)).toBe(true);
    const lines = bridgeLines(session, query, utf8);
    for (const { row, recent } of variants) {
      // imap-core's path shows \Recent as the last of the message's flags
      const shown = recent ? { ...row, flags: [...row.flags, '\\Recent'] } : row;
      expect(lines(row, summaries.get(row.messageUid), recent, objectIds(row)), command).toBe(
        imapCoreLine(session, query, shown, utf8),
      );
      compared++;
    }
  }
  expect(compared).toBe(lineCommands.length * variants.length);
});

test('a FETCH hands imap-core a message’s flags to announce only when a keyword is new to it', () => {
  const uidList = rows.map((r) => r.uid);
  const core = sessionOf(uidList, false);
  const announced: string[][] = [];
  core.announceKeywords = (flags: string[]) => announced.push(flags);
  const lines = bridgeLines(core, queryOf('FETCH 1:* (FLAGS)', uidList), false);
  const flagged = (i: number, flags: string[]) => lines({ ...rows[i], flags }, undefined);
  flagged(0, ['\\Seen']);
  flagged(1, ['$Work', '\\Seen']);
  flagged(2, ['$Work']);
  flagged(3, ['\\Flagged', '$Work', 'Projekt']);
  flagged(4, ['Projekt', '$Work']);
  flagged(5, ['projekt']);
  expect(announced).toEqual([['$Work', '\\Seen'], ['\\Flagged', '$Work', 'Projekt'], ['projekt']]);
  // another FETCH starts over: between commands the session may have selected again, with new FLAGS
  const again = bridgeLines(core, queryOf('FETCH 1:* (FLAGS)', uidList), false);
  again({ ...rows[0], flags: ['$Work'] }, undefined);
  expect(announced).toHaveLength(4);
});

test('non-ASCII ENVELOPE and BODYSTRUCTURE take the variant of the session kind', () => {
  const uidList = rows.map((r) => r.uid);
  const query = queryOf('FETCH 1:* (ENVELOPE BODYSTRUCTURE)', uidList);
  const plain = bridgeLines(sessionOf(uidList, false), query, false);
  const utf8 = bridgeLines(sessionOf(uidList, true), query, true);
  const differ = rows.filter((r) => plain(r, summaries.get(r.messageUid)) !== utf8(r, summaries.get(r.messageUid)));
  expect(differ.length).toBeGreaterThan(0);
  for (const row of differ) expect(plain(row, summaries.get(row.messageUid))).toMatch(/=\?utf-8\?/i);
});

test('sequence numbers are the positions imap-core finds, any order, messages missing or expunged meanwhile', () => {
  const query = queryOf('UID FETCH 1:* (FLAGS)', []);
  // every third message gone from the session's view, the rest shuffled (deterministically)
  const uidList = rows
    .map((r) => r.uid)
    .filter((_u, i) => i % 3)
    .sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101) || a - b);
  const session = sessionOf(uidList, false);
  const lines = bridgeLines(session, query, false);
  let skipped = 0;
  rows.forEach((row, i) => {
    // an EXPUNGE in the middle of the FETCH moves every later message up
    if (i === Math.floor(rows.length / 2)) uidList.splice(Math.floor(uidList.length / 3), 1);
    const expected = imapCoreLine(session, query, row, false);
    if (expected === false) skipped++;
    expect(lines(row, undefined)).toBe(expected);
  });
  expect(skipped).toBeGreaterThan(rows.length / 3);
});

test('messages imap-core answers itself: a summary item without a summary, RFC822.SIZE not known yet, no OBJECTID', () => {
  const uidList = rows.map((r) => r.uid);
  const session = sessionOf(uidList, false);
  const lines = bridgeLines(session, queryOf('FETCH 1:* (FLAGS ENVELOPE)', uidList), false);
  expect(lines(rows[0], undefined)).toBeUndefined();
  expect(lines(rows[0], summaries.get(rows[0].messageUid))).toMatch(/^\* 1 FETCH \(FLAGS \(.*\) ENVELOPE \(.*\)\)$/);
  const sizes = bridgeLines(session, queryOf('FETCH 1:* (RFC822.SIZE)', uidList), false);
  expect(sizes({ ...rows[0], size: 0 }, undefined)).toBeUndefined();
  expect(sizes(rows[0], undefined)).toBe(`* 1 FETCH (RFC822.SIZE ${rows[0].size})`);
  const ids = bridgeLines(session, queryOf('FETCH 1:* (EMAILID THREADID)', uidList), false);
  expect(ids(rows[0], undefined)).toBeUndefined();
  expect(ids(rows[0], undefined, false, { emailId: 'M_a-1', threadId: null })).toBe(
    '* 1 FETCH (EMAILID (M_a-1) THREADID NIL)',
  );
});

test.each([
  'FETCH 1 (BODY.PEEK[HEADER])',
  'FETCH 1 (FLAGS BODY)',
  'FETCH 1 FULL',
  'FETCH 1 (RFC822.SIZE RFC822.HEADER)',
  'FETCH 1 (BODY.PEEK[]<0.10>)',
  'FETCH 1 (BODY.PEEK[TEXT]<5.10>)',
  'FETCH 1 (BODY.PEEK[1])',
  'FETCH 1 (BODY.PEEK[1.TEXT])',
  'FETCH 1 (BINARY.PEEK[])',
  'FETCH 1 (EMAILID BODY.PEEK[1])',
])('%s is not a line query', (command) => {
  expect(
    isLineQuery(
      queryOf(
        command,
        rows.map((r) => r.uid),
      ),
    ),
  ).toBe(false);
});

test.each([
  'FETCH 1 (UID RFC822)',
  'FETCH 1 (BODY.PEEK[] FLAGS)',
  'FETCH 1 (BODY[TEXT] RFC822.SIZE)',
  'FETCH 1 (RFC822.TEXT ENVELOPE)',
  'FETCH 1 (UID RFC822 EMAILID)',
])('%s is a line query (a whole message from its kept bytes)', (command) => {
  expect(
    isLineQuery(
      queryOf(
        command,
        rows.map((r) => r.uid),
      ),
    ),
  ).toBe(true);
});

/** The answer without each ` BODY[HEADER.FIELDS (X-NONE)] {n}` and its literal, and without the tag. */
function withoutSection(text: string): string {
  const section = / BODY\[HEADER\.FIELDS \(X-NONE\)\] \{(\d+)\}\r\n/g;
  let out = '';
  let last = 0;
  for (let m = section.exec(text); m; m = section.exec(text)) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length + Number(m[1]);
    section.lastIndex = last;
  }
  return (out + text.slice(last)).replace(/^t\d+ .*\r\n/m, '');
}

const announced = /^\* OK \[HIGHESTMODSEQ \d+\] Highest\r\n/;

test.each([
  ['a plain session', false],
  ['a UTF8=ACCEPT session', true],
])('through a socket, FETCH answers the bytes of imap-core’s path, in %s', async (_name, utf8) => {
  const session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  try {
    if (utf8) expect(await session.run('ENABLE UTF8=ACCEPT')).toMatch(/ENABLED UTF8=ACCEPT/);
    await session.run('SELECT INBOX');
    expect(await session.run('STORE 1:3 +FLAGS (\\Flagged $Forwarded Projekt)')).toMatch(/^t\d+ OK/m);
    expect(await session.run('STORE 4 -FLAGS (\\Seen \\Flagged)')).toMatch(/^t\d+ OK/m);
    const commands = [
      'UID FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE RFC822.SIZE)',
      'FETCH 1:* (flags Uid Modseq INTERNALDATE)',
      'FETCH 2,4,9:12 (RFC822.SIZE)',
      'UID FETCH 1:* (FLAGS) (CHANGEDSINCE 1)',
      // whole messages from the tree's and the attachments' kept bytes (fetch-line.ts, message-literal.ts)
      'FETCH 1:25 (UID BODY.PEEK[])',
      'FETCH 26:50 (BODY.PEEK[TEXT] RFC822.SIZE)',
      'FETCH 51:75 (RFC822 FLAGS)',
      'FETCH 76:100 (RFC822.TEXT)',
      // imapflow's metadata FETCH asks for EMAILID; THREADID is NIL for a draft of no thread
      'UID FETCH 1:* (UID FLAGS BODYSTRUCTURE ENVELOPE RFC822.SIZE EMAILID THREADID MODSEQ)',
    ];
    for (const command of commands) {
      const fast = await session.run(command);
      // a header section sends every message through imap-core's formatResponse and compiler
      const [, items, modifier = ''] = /^(?:UID )?FETCH \S+ \((.*?)\)(.*)$/.exec(command)!;
      const slow = await session.run(
        command.replace(`(${items})${modifier}`, `(${items} BODY.PEEK[HEADER.FIELDS (X-NONE)])${modifier}`),
      );
      expect(fast.split('\r\n').filter((l) => l.startsWith('* ')).length, command).toBeGreaterThan(3);
      let answer = fast.replace(/^t\d+ .*\r\n/m, '');
      // the first command asking for MODSEQ turns CONDSTORE on and says so once (imap-core 085)
      if (command.includes('Modseq')) {
        expect(answer, command).toMatch(announced);
        answer = answer.replace(announced, '');
      }
      expect(answer, command).toBe(withoutSection(slow));
    }
    expect(await session.run('FETCH 1:4 (FLAGS)')).toMatch(/\$Forwarded/);
  } finally {
    session.close();
  }
});

test('FETCH again after other sessions changed flags: the new flags and MODSEQ, the same bytes as imap-core’s path', async () => {
  const session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  const other = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  try {
    const command = 'UID FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE RFC822.SIZE MODSEQ)';
    const slowCommand = command.replace('MODSEQ)', 'MODSEQ BODY.PEEK[HEADER.FIELDS (X-NONE)])');
    await session.run('SELECT INBOX');
    // the first FETCH reads the summaries from the store and keeps their bytes
    const before = await session.run(command);
    await other.run('SELECT INBOX');
    expect(await other.run('STORE 5 +FLAGS (\\Answered Zeta)')).toMatch(/^t\d+ OK/m);
    const modseq = /^\* 5 FETCH \(.*MODSEQ \((\d+)\)/m.exec(await other.run('FETCH 5 (MODSEQ)'))?.[1];
    expect(modseq).toBeDefined();
    await session.run('NOOP');
    // the second is answered from the kept bytes and the rows' flags as they are now
    const after = (await session.run(command)).replace(/^t\d+ .*\r\n/m, '');
    const line = (text: string) => text.split('\r\n').find((l) => l.startsWith('* 5 FETCH'));
    expect(line(before)).not.toMatch(/Zeta/);
    expect(line(after)).toMatch(/FLAGS \([^)]*\\Answered[^)]*Zeta\)/);
    expect(line(after)).toContain(`MODSEQ (${modseq})`);
    expect(after).toBe(withoutSection(await session.run(slowCommand)));
  } finally {
    session.close();
    other.close();
  }
});

test('a whole message over the in-memory bound streams through imap-core: its bytes the same, none made at once', async () => {
  // an attachment whose base64 alone is over the bound
  const big = Buffer.from(Array.from({ length: wholeMessageInMemoryBytes }, (_, i) => (i * 13) % 256));
  const ids = [await injectAttachedMessage(h, big), await injectAttachedMessage(h)];
  // the account is synced: the poller brings the new messages in
  await h.bridge.pollers[0].tick();
  const session = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  const made = vi.spyOn(AttachmentStorage.prototype, 'encodedBytes');
  try {
    await session.run('SELECT INBOX');
    const seqs: number[] = [];
    for (const id of ids)
      seqs.push(Number(/SEARCH (\d+)/.exec(await session.run(`SEARCH HEADER Message-ID "${id}"`))?.[1]));
    const [large, small] = seqs;
    for (const seq of [large, small]) {
      const command = `FETCH ${seq} (BODY.PEEK[])`;
      made.mockClear();
      const fast = (await session.run(command)).replace(/^t\d+ .*\r\n/m, '');
      const madeAtOnce = made.mock.calls.length;
      const slow = await session.run(command.replace(')', ' BODY.PEEK[HEADER.FIELDS (X-NONE)])'));
      expect(fast, command).toBe(withoutSection(slow));
      // the small one from bytes made at once, the large one streamed
      expect(madeAtOnce, command).toBe(seq === small ? 1 : 0);
    }
    const literal = Number(/BODY\[\] \{(\d+)\}/.exec(await session.run(`FETCH ${large} (BODY.PEEK[])`))?.[1]);
    expect(literal).toBeGreaterThan(wholeMessageInMemoryBytes);
  } finally {
    made.mockRestore();
    session.close();
  }
});
