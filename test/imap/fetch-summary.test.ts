import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';

/**
 * A metadata FETCH copies ENVELOPE/BODYSTRUCTURE as text compiled when the message was
 * described; a FETCH that needs the MIME tree builds them through imap-core as before. The
 * bytes must be the same, in plain sessions and in UTF8=ACCEPT ones, for every message.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 400 } });
});

afterAll(async () => {
  await h?.close();
});

/** A raw IMAP session: each command's whole answer as text. */
async function rawSession(): Promise<{ run(command: string): Promise<string>; close(): void }> {
  const socket = net.connect(h.bridge.ports.imap, '127.0.0.1');
  let buffer = '';
  let wake: (() => void) | null = null;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    wake?.();
  });
  const until = async (done: RegExp): Promise<string> => {
    while (!done.test(buffer)) await new Promise<void>((r) => (wake = r));
    const out = buffer;
    buffer = '';
    return out;
  };
  await until(/^\* OK.*\r\n/m);
  let n = 0;
  const run = async (command: string) => {
    const tag = `t${++n}`;
    socket.write(`${tag} ${command}\r\n`);
    return until(new RegExp(`^${tag} (OK|NO|BAD).*\\r\\n`, 'm'));
  };
  await run(`LOGIN "${mailbox}" "${h.password}"`);
  return { run, close: () => socket.destroy() };
}

/** The answers without each ` BODY[HEADER.FIELDS (X-NONE)] {n}` and its literal. */
function withoutSection(text: string): string {
  const section = / BODY\[HEADER\.FIELDS \(X-NONE\)\] \{(\d+)\}\r\n/g;
  let out = '';
  let last = 0;
  for (let m = section.exec(text); m; m = section.exec(text)) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length + Number(m[1]);
    section.lastIndex = last;
  }
  return out + text.slice(last);
}

test.each([
  ['a plain session', false],
  ['a UTF8=ACCEPT session', true],
])('compiled ENVELOPE and BODYSTRUCTURE equal the ones built from the MIME tree, in %s', async (_name, utf8) => {
  const session = await rawSession();
  try {
    if (utf8) expect(await session.run('ENABLE UTF8=ACCEPT')).toMatch(/ENABLED UTF8=ACCEPT/);
    await session.run('SELECT INBOX');
    const compiled = await session.run('UID FETCH 1:* (ENVELOPE BODYSTRUCTURE)');
    // a header section makes the answer go through the MIME tree
    const fromTree = await session.run('UID FETCH 1:* (ENVELOPE BODYSTRUCTURE BODY.PEEK[HEADER.FIELDS (X-NONE)])');
    const lines = (text: string) => text.split('\r\n').filter((l) => l.startsWith('* '));
    const treeLines = lines(withoutSection(fromTree));
    expect(lines(compiled).length).toBeGreaterThan(200);
    expect(lines(compiled)).toEqual(treeLines);
    // non-ASCII words are MIME-encoded for plain sessions only
    expect(/=\?utf-8\?/i.test(compiled)).toBe(!utf8);
  } finally {
    session.close();
  }
});

test('rows stored before summaries were compiled (imap column empty) are answered the same and filled in', async () => {
  const session = await rawSession();
  const db = new Database(path.join(h.stateDir, 'mailbridge.db'));
  try {
    await session.run('SELECT INBOX');
    const before = await session.run('UID FETCH 1:* (ENVELOPE BODYSTRUCTURE)');
    // what the migration leaves behind for rows written by an older version
    db.prepare('UPDATE metadata SET imap = NULL').run();
    const after = await session.run('UID FETCH 1:* (ENVELOPE BODYSTRUCTURE)');
    expect(after.replace(/^t\d+ /m, '')).toBe(before.replace(/^t\d+ /m, ''));
    // every INBOX message got its summary back; other folders' wait for their own FETCH
    const count = (where: string) =>
      (db.prepare(`SELECT count(*) AS n FROM metadata m JOIN messages r ON r.message_uid = m.message_uid JOIN folders f ON f.id = r.folder_id WHERE ${where}`).get() as { n: number }).n;
    expect(count("f.name = 'INBOX' AND m.imap IS NULL")).toBe(0);
    expect(count("f.name = 'INBOX'")).toBeGreaterThan(200);
  } finally {
    db.close();
    session.close();
  }
});
