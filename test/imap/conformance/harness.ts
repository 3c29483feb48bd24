import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, vendorFolder, type Harness } from '../../support/bridge-harness';
import { startDovecot, type Dovecot, type DovecotOptions } from '../../support/dovecot';
import { rawSession } from '../../support/raw-session';
import { requireTools } from '../../support/tools';
import { normalise } from './normalise';

/**
 * The conformance suite: the same raw IMAP exchanges against the bridge (sandbox vendor
 * behind it) and against a private Dovecot holding the same messages under the same UIDs,
 * answers compared after normalise(). Dovecot is the reference; every place the bridge
 * answers differently on purpose is a case marked `differs` with its reason, listed in
 * docs/conformance.md, and asserted to still differ (so a fixed one is noticed).
 */

const corpusDay = Date.UTC(2026, 0, 15);

/** Folders copied from the bridge into Dovecot, message for message, besides every Labels/ folder. */
const mirrored = ['INBOX', 'Drafts', 'Archive', 'Trash'];

/** A label that is not an atom, given to the first INBOX message before anything is mirrored. */
export const nonAsciiLabel = 'été';

/** Drafts appended to both servers after the mirrored ones: content only the bridge holds. */
export const drafts: Array<{ name: string; idate: string; source: string }> = [
  {
    // no Subject header, a preamble and an epilogue
    name: 'multipart',
    idate: '05-Jan-2023 10:00:00 +0000',
    source: [
      'From: Ann <ann@example.test>',
      'Date: Mon, 02 Jan 2023 23:30:00 -0500',
      'Message-ID: <multipart@example.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="XX"',
      '',
      'This is the preamble.',
      '--XX',
      'Content-Type: text/plain; charset=us-ascii',
      '',
      'zebra body',
      '--XX--',
      'This is the epilogue.',
      '',
    ].join('\r\n'),
  },
  {
    // written late on 2 January in New York: 3 January in UTC
    name: 'text',
    idate: '06-Jan-2023 08:00:00 +0000',
    source: [
      'From: Bob <bob@example.test>',
      'To: Ann <ann@example.test>',
      'Subject: plans',
      'Date: Tue, 03 Jan 2023 22:15:00 -0800',
      'Message-ID: <text@example.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Meet at the caf=C3=A9 near the giraffe house.',
      '',
    ].join('\r\n'),
  },
];

export interface Servers {
  bridge: { port: number; user: string; password: string };
  dovecot: { port: number; user: string; password: string };
}

function imapflow(port: number, user: string, pass: string): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    doSTARTTLS: false,
    auth: { user, pass },
    logger: false,
  });
  return client.connect().then(() => client);
}

/** Copies the mirrored folders into Dovecot with flags, keywords and INTERNALDATE, then the drafts into both. */
async function mirror(h: Harness, d: Dovecot): Promise<void> {
  const [first] = await vendorFolder(h.sandbox, 'INBOX');
  await control(h.sandbox, 'POST', '/flags', {
    mailbox,
    message_uid: first.message_uid,
    labels: [...first.labels, nonAsciiLabel],
  });
  const from = await imapflow(h.bridge.ports.imap, mailbox, h.password);
  const to = await imapflow(d.port, d.user, d.password);
  try {
    const labelFolders = (await from.list()).map((f) => f.path).filter((p) => p.startsWith('Labels/'));
    for (const folder of labelFolders) await to.mailboxCreate(folder);
    for (const folder of [...mirrored, ...labelFolders]) {
      await from.mailboxOpen(folder, { readOnly: true });
      const messages = [];
      for await (const m of from.fetch(
        '1:*',
        { uid: true, flags: true, internalDate: true, source: true },
        { uid: true },
      ))
        messages.push(m);
      for (const m of messages) {
        const appended = await to.append(folder, m.source as Buffer, [...(m.flags ?? [])], m.internalDate as Date);
        const uid = appended ? appended.uid : undefined;
        // the cases name messages by sequence number and UID alike: both must agree
        if (uid !== m.uid) throw new Error(`${folder}: Dovecot gave UID ${uid} to the bridge's UID ${m.uid}`);
      }
    }
    await from.logout();
    const bridge = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    const dovecot = await rawSession(d.port, d.user, d.password);
    for (const draft of drafts) {
      for (const s of [bridge, dovecot]) {
        const answer = await s.append('Drafts', draft.source, `() "${draft.idate}"`);
        if (!/ OK /.test(answer)) throw new Error(`APPEND of draft ${draft.name}: ${answer}`);
      }
    }
    bridge.close();
    dovecot.close();
    // a message is \Recent in one session only: these take it on both servers (EXAMINE takes
    // none, RFC 3501 6.3.2), so the cases see none
    const claimer = await imapflow(h.bridge.ports.imap, mailbox, h.password);
    for (const folder of [...mirrored, ...labelFolders]) {
      await to.mailboxOpen(folder);
      await claimer.mailboxOpen(folder);
    }
    await claimer.logout();
  } finally {
    await to.logout().catch(() => undefined);
  }
}

/** Sandbox + bridge and a Dovecot with the same messages, for one test file; `dovecot` configures the latter. */
export function useServers(dovecot: DovecotOptions = {}): { current: Servers } {
  const ctx = {} as { current: Servers };
  let h: Harness | undefined;
  let d: Dovecot | undefined;
  beforeAll(async () => {
    requireTools('dovecot');
    // a fixed corpus: same seed, same clock base (the corpus's dates follow the sandbox's day)
    const started = Date.now();
    h = await startHarness({ sandbox: { messages: 24, seed: 7, now: () => corpusDay + Date.now() - started } });
    d = await startDovecot([], dovecot);
    await mirror(h, d);
    ctx.current = {
      bridge: { port: h.bridge.ports.imap, user: mailbox, password: h.password },
      dovecot: { port: d.port, user: d.user, password: d.password },
    };
  });
  afterAll(async () => {
    await d?.stop();
    await h?.close();
  });
  return ctx;
}

/**
 * APPENDs `message` to Drafts on both servers and returns its UID, which both give alike (the
 * fixed corpus gives both the same UIDNEXT).
 */
export async function appendToBoth(servers: Servers, message: string): Promise<number> {
  const given = [];
  for (const server of [servers.bridge, servers.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    given.push(Number(/APPENDUID \d+ (\d+)/.exec(await s.append('Drafts', message, '()'))?.[1]));
    s.close();
  }
  expect(given[0]).toBeGreaterThan(0);
  expect(given[1]).toBe(given[0]);
  return given[0];
}

/**
 * A command line (sent as UTF-8, or as the bytes given: a string in another charset), or an
 * APPEND whose message goes as a literal after the continuation.
 */
export type Command = string | Buffer | { append: string; message: string; flags?: string };

const commandText = (c: Command) =>
  typeof c === 'string' ? c : Buffer.isBuffer(c) ? c.toString('latin1') : `APPEND ${c.append}`;

/** Runs setup and commands in one fresh session; the commands' answers normalised. */
async function exchange(
  server: Servers['bridge'],
  setup: readonly string[],
  commands: readonly Command[],
): Promise<string[][]> {
  const s = await rawSession(server.port, server.user, server.password);
  try {
    for (const command of setup) {
      const answer = await s.run(command);
      if (!/^t\d+ OK/m.test(answer)) throw new Error(`setup ${command} failed: ${answer}`);
    }
    const answers: string[][] = [];
    for (const c of commands) {
      const answer =
        typeof c === 'string' || Buffer.isBuffer(c) ? await s.run(c) : await s.append(c.append, c.message, c.flags);
      // LIST's child attributes are compared once the command asks for them
      answers.push(normalise(answer, { childAttributes: /\bRETURN\s*\([^)]*\bCHILDREN\b/i.test(commandText(c)) }));
    }
    return answers;
  } finally {
    s.close();
  }
}

export interface Case {
  name: string;
  /** Commands run first whose answers are not compared (selecting the folder, say). */
  setup?: readonly string[];
  commands: readonly Command[];
  /** An intentional difference: why the bridge answers otherwise (docs/conformance.md). */
  differs?: string;
}

/**
 * One describe per RFC section, one test per case: each runs its exchange on Dovecot and on
 * the bridge, one after the other (cases that change state do the same to both). `setup`
 * is the default for cases without their own.
 */
export function section(
  name: string,
  servers: { current: Servers },
  cases: readonly Case[],
  setup: readonly string[] = [],
): void {
  describe(name, () => {
    for (const c of cases) {
      test(c.differs ? `${c.name} (differs: ${c.differs})` : c.name, async () => {
        const dovecot = await exchange(servers.current.dovecot, c.setup ?? setup, c.commands);
        const bridge = await exchange(servers.current.bridge, c.setup ?? setup, c.commands);
        const label = (answers: string[][]) =>
          c.commands.map((command, i) => ({ command: commandText(command), answer: answers[i] }));
        if (c.differs) expect(label(bridge)).not.toEqual(label(dovecot));
        else expect(label(bridge)).toEqual(label(dovecot));
      });
    }
  });
}
