import { expect, test } from 'vitest';
import { rawSession, type RawSession } from '../../support/raw-session';
import { useServers, type Servers } from './harness';
import { normalise } from './normalise';

/**
 * QRESYNC (RFC 7162 3.2) against Dovecot holding the same Drafts: a client that knew the
 * folder at some MODSEQ selects it again with (QRESYNC (uidvalidity modseq)) and hears what
 * it missed, VANISHED (EARLIER) and the changed flags; UID FETCH (CHANGEDSINCE m VANISHED)
 * likewise; a session that enabled QRESYNC hears VANISHED instead of EXPUNGE and FETCHes with
 * their UID; selecting another folder first says [CLOSED]. Each server's own UIDVALIDITY and
 * MODSEQ go into its commands; MODSEQ values are normalised away.
 */

const servers = useServers();

const draft = (name: string) =>
  [
    'From: Ann <ann@example.test>',
    `Subject: qresync ${name}`,
    `Message-ID: <qresync-${name}@example.test>`,
    '',
    name,
    '',
  ].join('\r\n');

/**
 * What is compared: FLAGS and PERMANENTFLAGS are left out (their keywords differ for reasons
 * of their own: rfc3501-keywords, rfc3501-select), as is a HIGHESTMODSEQ code in a tagged OK,
 * which the bridge does not send (docs/conformance.md).
 */
function comparable(answer: string): string[] {
  return normalise(answer)
    .filter((r) => !/^\* (FLAGS |OK \[PERMANENTFLAGS )/.test(r))
    .map((r) => r.replace(/^(\S+ OK) \[HIGHESTMODSEQ \d+\]$/, '$1'));
}

const code = (answer: string, name: string) => Number(new RegExp(`\\[${name} (\\d+)\\]`).exec(answer)?.[1]);

/** The whole scenario on one server: each step's answer, normalised. */
async function scenario(server: Servers['bridge']): Promise<Record<string, string[]>> {
  const open = () => rawSession(server.port, server.user, server.password);
  const sessions: RawSession[] = [];
  const out: Record<string, string[]> = {};
  try {
    const [watcher, writer, returning] = [await open(), await open(), await open()];
    sessions.push(watcher, writer, returning);
    out.enable = comparable(await watcher.run('ENABLE QRESYNC'));
    const known = await watcher.run('SELECT Drafts');
    const uidValidity = code(known, 'UIDVALIDITY');
    const modseq = code(known, 'HIGHESTMODSEQ');
    expect(uidValidity).toBeGreaterThan(0);
    expect(modseq).toBeGreaterThan(0);

    // what the returning client misses: three drafts, one flagged, one expunged, and below, one more of each
    await writer.run('SELECT Drafts');
    for (const name of ['x', 'y', 'z']) await writer.append('Drafts', draft(name), '()');
    const uids = (await writer.run('UID SEARCH SUBJECT qresync')).match(/SEARCH ((?:\d+ ?)+)/)?.[1].split(' ') ?? [];
    expect(uids).toHaveLength(3);
    await writer.run(`UID STORE ${uids[1]} +FLAGS.SILENT (\\Flagged)`);
    await writer.run(`UID STORE ${uids[0]} +FLAGS.SILENT (\\Deleted)`);
    out.expunge = comparable(await writer.run('EXPUNGE'));

    out.watcherNoop = comparable(await watcher.run('NOOP'));

    // now the watcher knows y and z: it hears y vanish and z's new flags, with its UID
    await writer.run(`UID STORE ${uids[2]} +FLAGS.SILENT (\\Seen)`);
    await writer.run(`UID STORE ${uids[1]} +FLAGS.SILENT (\\Deleted)`);
    out.expungeKnown = comparable(await writer.run('EXPUNGE'));
    out.watcherVanished = comparable(await watcher.run('NOOP'));

    out.returningEnable = comparable(await returning.run('ENABLE QRESYNC'));
    out.qresyncSelect = comparable(await returning.run(`SELECT Drafts (QRESYNC (${uidValidity} ${modseq}))`));
    out.vanishedFetch = comparable(await returning.run(`UID FETCH 1:* (FLAGS) (CHANGEDSINCE ${modseq} VANISHED)`));
    out.knownUids = comparable(
      await returning.run(`EXAMINE Drafts (QRESYNC (${uidValidity} ${modseq} ${uids[1]}:${uids[2]}))`),
    );
    out.otherUidValidity = comparable(await returning.run(`EXAMINE Drafts (QRESYNC (${uidValidity + 1} ${modseq}))`));
    out.closed = comparable(await returning.run('EXAMINE INBOX'));
    return out;
  } finally {
    for (const s of sessions) s.close();
  }
}

test('a returning client hears what it missed, as from Dovecot', async () => {
  const dovecot = await scenario(servers.current.dovecot);
  const bridge = await scenario(servers.current.bridge);
  // the scenario says something: an expunge and a flag change reached the returning client
  expect(dovecot.qresyncSelect.join('\n')).toMatch(/^\* VANISHED \(EARLIER\) \d+[:,]\d+$/m);
  expect(dovecot.qresyncSelect.join('\n')).toMatch(/FETCH \(.*\\Seen/);
  expect(dovecot.watcherVanished.join('\n')).toMatch(/^\* VANISHED \d+$/m);
  expect(bridge).toEqual(dovecot);
});

async function errors(server: Servers['bridge']): Promise<string[][]> {
  const s = await rawSession(server.port, server.user, server.password);
  try {
    const answers = [comparable(await s.run('SELECT Drafts (QRESYNC (1 2))'))];
    answers.push(comparable(await s.run('SELECT Drafts (FOO)')));
    await s.run('ENABLE QRESYNC');
    for (const command of [
      'SELECT Drafts (QRESYNC (1))',
      'SELECT Drafts (QRESYNC (1 0))',
      'FETCH 1 (FLAGS) (CHANGEDSINCE 1 VANISHED)',
      'UID FETCH 1 (FLAGS) (VANISHED)',
    ])
      answers.push(comparable(await s.run(command)));
    return answers;
  } finally {
    s.close();
  }
}

test('QRESYNC before ENABLE, a malformed parameter and VANISHED misused are BAD, as in Dovecot', async () => {
  const dovecot = await errors(servers.current.dovecot);
  expect(dovecot[0].at(-1)).toMatch(/ BAD/);
  expect(await errors(servers.current.bridge)).toEqual(dovecot);
});

test('both advertise QRESYNC', async () => {
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bQRESYNC\b/m);
    s.close();
  }
});
