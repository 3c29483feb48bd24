import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/log';
import { resyncMailbox } from '../../src/ops/resync';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import type { VendorMessage } from '../../src/upstream/types';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';
import { type ProxiedCommand, startVendorProxy, type Verdict, type VendorProxy } from '../support/vendor-proxy';

/**
 * Label folders a client manages (RFC 3501 6.3.3 CREATE, 6.3.4 DELETE, 6.3.5 RENAME), as raw
 * exchanges and as imapflow (Thunderbird's steps) against the sandbox, whose read host is
 * reached through a proxy that records every request (the vendor's limits are checked on it)
 * and injects a fault at an exact request.
 */

let sandbox: Sandbox;
let proxy: VendorProxy;
let h: Harness;
let s: RawSession;
let verdict: (commands: ProxiedCommand[]) => Verdict = () => 'pass';

/** What a latin1-decoding raw session shows for these UTF-8 bytes. */
const wire = (text: string) => Buffer.from(text).toString('latin1');

async function vendorMessages(): Promise<VendorMessage[]> {
  return (
    await control<{ messages: VendorMessage[] }>(sandbox, 'GET', `/messages?mailbox=${encodeURIComponent(mailbox)}`)
  ).messages;
}

const carrying = async (label: string) => (await vendorMessages()).filter((m) => m.labels.includes(label));

/** Gives `name` to `count` vendor messages (of every folder), from the first or from number `from`. */
async function label(count: number, name: string, from = 0): Promise<VendorMessage[]> {
  const all = await vendorMessages();
  const picked = all.slice(from, from + count);
  expect(picked).toHaveLength(count);
  for (const m of picked)
    await control(sandbox, 'POST', '/flags', { mailbox, message_uid: m.message_uid, labels: [...m.labels, name] });
  return picked;
}

/**
 * The label commands the bridge sent since request number `since`, by request; `accepted`:
 * only those of requests the vendor answered 200 (one refused as a whole, 429 or 503, changed
 * nothing and is sent again).
 */
function labelRequests(since: number, accepted = false): ProxiedCommand[][] {
  return proxy.requests
    .slice(since)
    .filter((r) => !accepted || r.status === 200)
    .map((r) => r.commands.filter((c) => c.command === 'label'))
    .filter((c) => c.length);
}

const idsOf = (commands: ProxiedCommand[]) => commands.flatMap((c) => c.args.ids as string[]);

/** Every request within the vendor's limits: 20 commands, 50 ids a label command. */
function expectWithinLimits(since: number): void {
  for (const r of proxy.requests.slice(since)) expect(r.commands.length).toBeLessThanOrEqual(20);
  for (const c of labelRequests(since).flat()) expect((c.args.ids as string[]).length).toBeLessThanOrEqual(50);
}

/** LIST's untagged answer. */
async function listed(session: RawSession = s): Promise<string> {
  return (await session.run('LIST "" "*"'))
    .split('\n')
    .filter((l) => l.startsWith('* '))
    .join('\n');
}

/** The LIST line of a mailbox, quoted or not. */
const listLine = (name: string) =>
  new RegExp(`^\\* LIST \\([^)]*\\) "/" "?${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"?\\r$`, 'm');

/** What a session that has a deleted or renamed label folder selected hears. */
const bye = /^\* BYE Selected mailbox was deleted, have to disconnect\r$/m;

/** The session heard the BYE (perhaps in the packet of its last answer), after every tagged answer. */
async function disconnected(session: RawSession): Promise<void> {
  if (!bye.test(session.transcript())) await session.waitFor(bye);
  const heard = session.transcript();
  expect(heard.search(bye)).toBeGreaterThan(heard.lastIndexOf('\r\nt'));
}

/** A new session `s`, after the bridge closed the last one. */
async function reconnect(): Promise<void> {
  s.close();
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
}

const uidValidity = (answer: string) => Number(/\[UIDVALIDITY (\d+)\]/.exec(answer)?.[1]);

/** A folder's messages as a client caches them: their bytes by UIDVALIDITY and UID. */
interface Numbered {
  uidValidity: bigint;
  bytes: Map<string, string>;
}

async function numbered(path: string): Promise<Numbered> {
  const client = await h.client();
  try {
    const box = await client.mailboxOpen(path, { readOnly: true });
    const bytes = new Map<string, string>();
    if (box.exists)
      for (const m of await client.fetchAll('1:*', { uid: true, source: true }))
        bytes.set(`${box.uidValidity}/${m.uid}`, m.source?.toString('latin1') ?? '');
    return { uidValidity: box.uidValidity, bytes };
  } finally {
    await client.logout();
  }
}

/**
 * A name used for another folder than before (RFC 3501 2.3.1.1): its UIDVALIDITY is greater, so
 * no UID a client kept of the old folder answers other bytes.
 */
function expectNumberedAfresh(before: Numbered, after: Numbered): void {
  expect(after.uidValidity).toBeGreaterThan(before.uidValidity);
  const reused = [...after.bytes].filter(([id, bytes]) => before.bytes.has(id) && before.bytes.get(id) !== bytes);
  expect(reused).toEqual([]);
}

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 1100 });
  proxy = await startVendorProxy(sandbox.urls.read, (r) => verdict(r.commands));
  h = await startHarness({
    vendor: sandbox,
    config: { vendor: { ...vendorSettings(sandbox), readUrl: proxy.url } },
  });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
});

afterAll(async () => {
  s?.close();
  await h?.close();
  await proxy?.close();
  await sandbox?.close();
});

describe('CREATE', () => {
  test('CREATE Labels/<name> lists an empty label folder at once, which opens; the vendor has no such label yet', async () => {
    expect(await s.run('CREATE Labels/Projects')).toMatch(/^t\d+ OK/m);
    expect(await listed()).toMatch(listLine('Labels/Projects'));
    const opened = await s.run('SELECT Labels/Projects');
    expect(opened).toMatch(/^\* 0 EXISTS\r$/m);
    expect(opened).toMatch(/^t\d+ OK \[READ-WRITE\]/m);
    expect(await s.run('STATUS Labels/Projects (MESSAGES UIDNEXT)')).toMatch(/MESSAGES 0 UIDNEXT 1\)/);
    expect(await carrying('Projects')).toEqual([]);
    // APPEND is answered as in every label folder: the vendor cannot store a message
    expect(await s.append('Labels/Projects', 'Subject: x\r\n\r\nx\r\n', '()')).toMatch(
      /^t\d+ NO \[CANNOT\] The mail vendor API cannot store messages in Labels\/Projects/m,
    );
    expect(await s.run('CREATE Labels/Projects')).toMatch(
      /^t\d+ NO \[ALREADYEXISTS\] Labels\/Projects already exists/m,
    );
    await s.run('UNSELECT');
  });

  test.each([
    ['Projects', 'The mail vendor API cannot create folders; a label folder can be created as Labels/<name>'],
    ['INBOX/Sub', 'INBOX is a vendor folder, and the mail vendor API cannot create folders inside it'],
    ['Archive/2026', 'Archive is a vendor folder, and the mail vendor API cannot create folders inside it'],
    ['Labels', 'Labels holds the label folders and is no folder itself'],
    ['"Labels/a*b"', 'A label folder name cannot hold the wildcards * and % or control characters'],
  ])('CREATE %s is refused with NO [CANNOT] and why', async (name, why) => {
    const before = await listed();
    const answer = await s.run(`CREATE ${name}`);
    expect(answer).toMatch(/^t\d+ NO \[CANNOT\] /m);
    expect(answer).toContain(why);
    expect(await listed()).toBe(before);
  });

  test('CREATE of a vendor folder is NO [ALREADYEXISTS]', async () => {
    expect(await s.run('CREATE inbox')).toMatch(/^t\d+ NO \[ALREADYEXISTS\]/m);
    expect(await s.run('CREATE Archive')).toMatch(/^t\d+ NO \[ALREADYEXISTS\]/m);
  });

  test('names in modified UTF-7, in UTF-8 after ENABLE UTF8=ACCEPT, and below another label', async () => {
    expect(await s.run('CREATE "Labels/&AOk-t&AOk- 2026"')).toMatch(/^t\d+ OK/m);
    expect(await listed()).toMatch(listLine('Labels/&AOk-t&AOk- 2026'));
    const utf8 = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    try {
      await utf8.run('ENABLE UTF8=ACCEPT');
      expect(await utf8.run('CREATE "Labels/Über"')).toMatch(/^t\d+ OK/m);
      expect(await listed(utf8)).toMatch(listLine(wire('Labels/Über')));
    } finally {
      utf8.close();
    }
    expect(await listed()).toMatch(listLine('Labels/&ANw-ber'));
    // COPY into the created folder labels the message at the vendor
    await s.run('SELECT INBOX');
    expect(await s.run('COPY 1 "Labels/&ANw-ber"')).toMatch(/^t\d+ OK \[COPYUID /m);
    expect(await carrying('Über')).toHaveLength(1);
    await s.run('UNSELECT');

    expect(await s.run('CREATE Labels/Parent/Child')).toMatch(/^t\d+ OK/m);
    const list = await listed();
    expect(list).toMatch(listLine('Labels/Parent/Child'));
    expect(list).toMatch(/^\* LIST \([^)]*\\Noselect[^)]*\) "\/" "?Labels\/Parent"?\r$/m);
  });
});

describe('RENAME', () => {
  test('a label folder only the bridge has is renamed here, without a vendor write', async () => {
    expect(await s.run('CREATE Labels/Ideas')).toMatch(/^t\d+ OK/m);
    const since = proxy.requests.length;
    expect(await s.run('RENAME Labels/Ideas Labels/Plans')).toMatch(/^t\d+ OK/m);
    expect(labelRequests(since)).toEqual([]);
    const list = await listed();
    expect(list).toMatch(listLine('Labels/Plans'));
    expect(list).not.toMatch(listLine('Labels/Ideas'));
  });

  test('a label on more than 50 messages (and the label below it) moves to the new name within the vendor limits; the folder starts new UIDs', async () => {
    const big = await label(120, 'Big');
    await label(2, 'Big/Sub');
    const before = await s.run('SELECT Labels/Big');
    expect(before).toMatch(/^\* 120 EXISTS\r$/m);
    const since = proxy.requests.length;
    expect(await s.run('RENAME Labels/Big Labels/Bigger')).toMatch(/^t\d+ OK/m);
    // the session had the old name selected, whose UID map ended
    await disconnected(s);
    await reconnect();

    const sent = labelRequests(since);
    expectWithinLimits(since);
    const removing = (name: string) => sent.flat().filter((c) => (c.args.remove as string[])[0] === name);
    expect(removing('Big')).toHaveLength(3);
    expect(new Set(idsOf(removing('Big'))).size).toBe(120);
    expect(idsOf(removing('Big'))).toHaveLength(120);
    expect(idsOf(removing('Big/Sub'))).toHaveLength(2);
    expect(
      sent.flat().every((c) => (c.args.add as string[])[0] === `Bigger${(c.args.remove as string[])[0].slice(3)}`),
    ).toBe(true);

    expect(await carrying('Big')).toEqual([]);
    expect(await carrying('Big/Sub')).toEqual([]);
    expect((await carrying('Bigger')).map((m) => m.message_uid).sort()).toEqual(big.map((m) => m.message_uid).sort());
    expect(await carrying('Bigger/Sub')).toHaveLength(2);

    const list = await listed();
    expect(list).toMatch(listLine('Labels/Bigger'));
    expect(list).toMatch(listLine('Labels/Bigger/Sub'));
    expect(list).not.toMatch(listLine('Labels/Big'));
    expect(list).not.toMatch(listLine('Labels/Big/Sub'));
    const after = await s.run('SELECT Labels/Bigger');
    expect(after).toMatch(/^\* 120 EXISTS\r$/m);
    expect(uidValidity(after)).not.toBe(uidValidity(before));

    // the message in its own folder shows the new keyword instead of the old one
    await s.run('SELECT INBOX');
    const flags = await s.run(`UID SEARCH KEYWORD Bigger`);
    expect(flags).toMatch(/^\* SEARCH \d/m);
    expect(await s.run('UID SEARCH KEYWORD Big')).toMatch(/^\* SEARCH\r$/m);
    await s.run('UNSELECT');
  });

  test.each([
    ['Labels/Bigger Labels/Projects', /NO \[ALREADYEXISTS\] Labels\/Projects already exists/],
    ['Labels/Bigger Labels/Bigger', /NO \[ALREADYEXISTS\]/],
    ['Labels/Bigger Labels/Bigger/Inner', /NO \[CANNOT\] Labels\/Bigger cannot be moved inside itself/],
    ['Labels/Bigger Archive', /NO \[ALREADYEXISTS\]/],
    ['Labels/Bigger Elsewhere', /NO \[CANNOT\] The mail vendor API cannot create folders/],
    [
      'Archive Old',
      /NO \[CANNOT\] Archive is a vendor folder, and the mail vendor API cannot rename or delete folders/,
    ],
    ['Labels Tags', /NO \[CANNOT\] Labels only holds other folders/],
    ['Labels/Nothing Labels/Something', /NO \[NONEXISTENT\]/],
  ])('RENAME %s is refused, nothing changed', async (names, answer) => {
    const since = proxy.requests.length;
    expect(await s.run(`RENAME ${names}`)).toMatch(answer);
    expect(labelRequests(since)).toEqual([]);
  });

  test('a vendor failure part way: NO naming what is left, every message with one of the two labels, and RENAME again finishes, after a restart too', async () => {
    const half = await label(120, 'Half');
    let first = true;
    // the first label request reaches the vendor with its first command (50 ids) only
    verdict = (commands) => {
      if (!first || !commands.some((c) => c.command === 'label')) return 'pass';
      first = false;
      return 'first-command-only';
    };
    const since = proxy.requests.length;
    const answer = await s.run('RENAME Labels/Half Labels/Whole');
    verdict = () => 'pass';
    expect(answer).toMatch(
      /^t\d+ NO \[UNAVAILABLE\] RENAME of Labels\/Half stopped \(.+\): 50 of 120 messages are done, 70 still carry the label; RENAME again to finish/m,
    );
    const moved = await carrying('Whole');
    const left = await carrying('Half');
    expect(moved).toHaveLength(50);
    expect(left).toHaveLength(70);
    expect([...moved, ...left].map((m) => m.message_uid).sort()).toEqual(half.map((m) => m.message_uid).sort());
    const list = await listed();
    expect(list).toMatch(listLine('Labels/Half'));
    expect(list).toMatch(listLine('Labels/Whole'));
    expect(await s.run('STATUS Labels/Half (MESSAGES)')).toMatch(/MESSAGES 70\)/);

    // the rename under way is kept in the state: after a restart RENAME still finishes it
    s.close();
    await h.restart();
    s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    const again = proxy.requests.length;
    expect(await s.run('RENAME Labels/Half Labels/Whole')).toMatch(/^t\d+ OK/m);
    // only what was left is sent again, once: a request the vendor refused whole (429, 503)
    // changed nothing and goes again; what was done is not sent
    expect(idsOf(labelRequests(again, true).flat()).sort()).toEqual(left.map((m) => m.message_uid).sort());
    expect(new Set(idsOf(labelRequests(again).flat()))).toEqual(new Set(left.map((m) => m.message_uid)));
    expectWithinLimits(since);
    expect(await carrying('Half')).toEqual([]);
    expect(await carrying('Whole')).toHaveLength(120);
    expect(await listed()).not.toMatch(listLine('Labels/Half'));
  });

  test('more messages than one request carries go request after request; a refused request stops the walk there', async () => {
    const many = await label(1100, 'Many');
    let requests = 0;
    // from the second label request on, every one is refused (503 AUTH_UNAVAILABLE: nothing
    // applied, so the client may repeat it; it is refused again)
    verdict = (commands) => (commands.some((c) => c.command === 'label') && ++requests >= 2 ? 'unavailable' : 'pass');
    const since = proxy.requests.length;
    const answer = await s.run('RENAME Labels/Many Labels/Lots');
    verdict = () => 'pass';
    expect(answer).toMatch(/: 1000 of 1100 messages are done, 100 still carry the label; RENAME again to finish\r$/m);
    const sent = labelRequests(since);
    expect(sent[0]).toHaveLength(20);
    // the rest are the second request and its repetitions, never the first's ids again
    expect(sent.slice(1).every((r) => r.length === 2)).toBe(true);
    expect(new Set(idsOf(sent.flat())).size).toBe(1100);
    expectWithinLimits(since);
    expect(await carrying('Lots')).toHaveLength(1000);

    expect(await s.run('RENAME Labels/Many Labels/Lots')).toMatch(/^t\d+ OK/m);
    expect((await carrying('Lots')).map((m) => m.message_uid).sort()).toEqual(many.map((m) => m.message_uid).sort());
    expect(await carrying('Many')).toEqual([]);
  });

  test('a lost answer is settled by reading the messages back, never by sending the write again', async () => {
    await label(60, 'Lost');
    let first = true;
    verdict = (commands) => {
      if (!first || !commands.some((c) => c.command === 'label')) return 'pass';
      first = false;
      return 'lose-answer';
    };
    const since = proxy.requests.length;
    const answer = await s.run('RENAME Labels/Lost Labels/Found');
    verdict = () => 'pass';
    expect(answer).toMatch(/^t\d+ OK/m);
    expect(idsOf(labelRequests(since).flat())).toHaveLength(60);
    const readBack = proxy.requests.slice(since).some((r) => r.commands.some((c) => c.command === 'get_messages'));
    expect(readBack).toBe(true);
    expect(await carrying('Lost')).toEqual([]);
    expect(await carrying('Found')).toHaveLength(60);
  });
});

describe('DELETE', () => {
  test('DELETE takes the label off every message (more than 50), which stay in their folders; the folder goes', async () => {
    const bulk = await label(70, 'Bulk');
    await s.run('SELECT Labels/Bulk');
    const since = proxy.requests.length;
    expect(await s.run('DELETE Labels/Bulk')).toMatch(/^t\d+ OK/m);
    await disconnected(s);
    await reconnect();
    expectWithinLimits(since);
    const sent = labelRequests(since).flat();
    expect(sent.every((c) => (c.args.remove as string[])[0] === 'Bulk' && c.args.add === undefined)).toBe(true);
    expect(new Set(idsOf(sent)).size).toBe(70);
    const after = new Map((await vendorMessages()).map((m) => [m.message_uid, m]));
    for (const m of bulk) {
      expect(after.get(m.message_uid)?.labels).not.toContain('Bulk');
      expect(after.get(m.message_uid)?.folders).toEqual(m.folders);
    }
    expect(await listed()).not.toMatch(listLine('Labels/Bulk'));
    expect(await s.run('DELETE Labels/Bulk')).toMatch(/^t\d+ NO \[NONEXISTENT\]/m);
    // gone as a mailbox: SELECT and STATUS answer as for any missing folder, APPEND asks for CREATE
    expect(await s.run('SELECT Labels/Bulk')).toMatch(/^t\d+ NO \[NONEXISTENT\]/m);
    expect(await s.run('STATUS Labels/Bulk (MESSAGES)')).toMatch(/^t\d+ NO \[NONEXISTENT\]/m);
    expect(await s.append('Labels/Bulk', 'Subject: x\r\n\r\nx\r\n', '()')).toMatch(/^t\d+ NO \[TRYCREATE\]/m);
  });

  test('a label folder only the bridge has just goes', async () => {
    expect(await s.run('CREATE Labels/Scratch')).toMatch(/^t\d+ OK/m);
    const since = proxy.requests.length;
    expect(await s.run('DELETE Labels/Scratch')).toMatch(/^t\d+ OK/m);
    expect(labelRequests(since)).toEqual([]);
    expect(await listed()).not.toMatch(listLine('Labels/Scratch'));
  });

  test.each([
    ['INBOX', /NO \[CANNOT\] INBOX can not be deleted/],
    ['Archive', /NO \[CANNOT\] Archive is a vendor folder, and the mail vendor API cannot rename or delete folders/],
    ['Sent', /NO \[CANNOT\] Sent is a vendor folder/],
    ['Labels', /NO \[CANNOT\] Labels only holds other folders and cannot be deleted/],
    ['Labels/Parent', /NO \[CANNOT\] Labels\/Parent only holds other folders and cannot be deleted/],
  ])('DELETE %s is refused', async (name, answer) => {
    expect(await s.run(`DELETE ${name}`)).toMatch(answer);
    expect(await listed()).toMatch(/^\* LIST /m);
  });
});

describe('a label folder name used again (RFC 3501 2.3.1.1)', () => {
  let again: Numbered;

  test('DELETE and CREATE: the new folder has a greater UIDVALIDITY and its own UIDs', async () => {
    await label(3, 'Again');
    const before = await numbered('Labels/Again');
    expect(before.bytes.size).toBe(3);
    // a session claims the old folder's messages as \Recent
    const first = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    expect(await first.run('SELECT Labels/Again')).toMatch(/^\* 3 RECENT\r$/m);
    first.close();
    expect(await s.run('DELETE Labels/Again')).toMatch(/^t\d+ OK/m);
    expect(await s.run('CREATE Labels/Again')).toMatch(/^t\d+ OK/m);
    // other messages get the label: the new folder numbers them from 1, recent for the first SELECT
    await label(3, 'Again', 3);
    expect(await s.run('SELECT Labels/Again')).toMatch(/^\* 3 RECENT\r$/m);
    expect(await s.run('UNSELECT')).toMatch(/^t\d+ OK/m);
    again = await numbered('Labels/Again');
    expect([...again.bytes.keys()]).toEqual([1, 2, 3].map((uid) => `${again.uidValidity}/${uid}`));
    expectNumberedAfresh(before, again);
  });

  test('RENAME onto a name a folder had before: a greater UIDVALIDITY than that folder had', async () => {
    await label(2, 'Former', 10);
    const before = await numbered('Labels/Former');
    expect(before.bytes.size).toBe(2);
    expect(await s.run('RENAME Labels/Former Labels/Elder')).toMatch(/^t\d+ OK/m);
    await label(2, 'Newer', 12);
    expect(await s.run('RENAME Labels/Newer Labels/Former')).toMatch(/^t\d+ OK/m);
    const after = await numbered('Labels/Former');
    expect(after.bytes.size).toBe(2);
    expectNumberedAfresh(before, after);
    // a folder only the bridge has, renamed onto an old name, starts afresh too
    expect(await s.run('CREATE Labels/Blank')).toMatch(/^t\d+ OK/m);
    expect(await s.run('RENAME Labels/Former Labels/Afterwards')).toMatch(/^t\d+ OK/m);
    expect(await s.run('RENAME Labels/Blank Labels/Former')).toMatch(/^t\d+ OK/m);
    expectNumberedAfresh(after, await numbered('Labels/Former'));
  });

  test('every session that has the folder selected is disconnected, the deleting one after its OK, as in Dovecot', async () => {
    await label(1, 'Gone', 20);
    const other = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    const unrelated = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    try {
      expect(await other.run('SELECT Labels/Gone')).toMatch(/^\* 1 EXISTS\r$/m);
      expect(await unrelated.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
      expect(await s.run('SELECT Labels/Gone')).toMatch(/^\* 1 EXISTS\r$/m);
      expect(await s.run('DELETE Labels/Gone')).toMatch(/^t\d+ OK/m);
      await disconnected(s);
      await disconnected(other);
      expect(await unrelated.run('NOOP')).toMatch(/^t\d+ OK/m);
    } finally {
      other.close();
      unrelated.close();
      await reconnect();
    }
  });

  test('a restart keeps the new UIDVALIDITY and UIDs, never the old ones', async () => {
    s.close();
    await h.restart();
    s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    expect(await numbered('Labels/Again')).toEqual(again);
  });
});

describe("Thunderbird's steps", () => {
  test('CREATE, then mail moved and copied into it; it survives a restart and a resync with its UIDs', async () => {
    const client = await h.client();
    for (const path of ['Labels/Invoices', 'Labels/Settled', 'Labels/Someday'])
      expect((await client.mailboxCreate(path)).created).toBe(true);
    expect((await client.list()).map((f) => f.path)).toEqual(
      expect.arrayContaining(['Labels/Invoices', 'Labels/Settled', 'Labels/Someday']),
    );
    await client.mailboxOpen('INBOX');
    // Ctrl+drag: COPY labels the messages
    expect(await client.messageCopy('1:3', 'Labels/Invoices')).toBeTruthy();
    // a message cannot leave its folder for a label: MOVE from a folder stays refused
    expect(await client.messageMove('4', 'Labels/Invoices')).toBeFalsy();
    // drag from one label folder to another moves the label
    await client.mailboxOpen('Labels/Invoices');
    expect(await client.messageMove('1', 'Labels/Settled')).toBeTruthy();
    expect(await carrying('Invoices')).toHaveLength(2);
    expect(await carrying('Settled')).toHaveLength(1);
    // emptied by the client, a folder stays until it is deleted (RFC 3501), though the vendor
    // no longer lists a label no message carries (a CREATE reads the vendor's list anew first:
    // Settled is the vendor's label now)
    expect((await client.mailboxCreate('Labels/Elsewhere')).created).toBe(true);
    await client.mailboxOpen('Labels/Settled');
    await client.messageDelete('1:*');
    expect(await carrying('Settled')).toEqual([]);
    expect((await client.list()).map((f) => f.path)).toContain('Labels/Settled');

    const invoices = await client.mailboxOpen('Labels/Invoices');
    const uids = await client.search({ all: true }, { uid: true });
    await client.logout();

    await h.restart();
    const again = await h.client();
    try {
      const paths = (await again.list()).map((f) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['Labels/Invoices', 'Labels/Settled', 'Labels/Someday']));
      const reopened = await again.mailboxOpen('Labels/Invoices');
      expect(reopened.uidValidity).toBe(invoices.uidValidity);
      expect(await again.search({ all: true }, { uid: true })).toEqual(uids);

      const repaired = await resyncMailbox(h.bridge.accounts, mailbox, undefined, createLogger('silent'));
      expect(repaired.folders.filter((f) => f.error)).toEqual([]);
      expect(repaired.folders.map((f) => f.folder)).toEqual(
        expect.arrayContaining(['Labels/Invoices', 'Labels/Settled', 'Labels/Someday']),
      );
      expect((await again.list()).map((f) => f.path)).toEqual(
        expect.arrayContaining(['Labels/Invoices', 'Labels/Settled', 'Labels/Someday']),
      );
      const resynced = await again.mailboxOpen('Labels/Invoices');
      expect(resynced.uidValidity).toBe(invoices.uidValidity);
      expect(await again.search({ all: true }, { uid: true })).toEqual(uids);
      expect((await again.mailboxOpen('Labels/Someday')).exists).toBe(0);
      expect((await again.mailboxOpen('Labels/Settled')).exists).toBe(0);
      await again.mailboxClose();
      await again.mailboxDelete('Labels/Settled');
      expect((await again.list()).map((f) => f.path)).not.toContain('Labels/Settled');
    } finally {
      await again.logout();
    }
  });
});
