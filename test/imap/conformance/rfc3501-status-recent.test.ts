import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { untagged } from '../../support/conformance';
import { useServers, type Servers } from './harness';
import { normalise } from './normalise';

/**
 * RFC 3501 6.3.10 STATUS RECENT next to \Recent's one-session rule (2.3.2): a message the
 * selecting session was told of (its own APPEND's EXISTS) is recent in that session, so its
 * own STATUS counts it and another session's does not, and the session hears its RECENT count
 * change (7.3.2), as in Dovecot.
 */

const servers = useServers();

const draft = [
  'From: Ann <ann@example.test>',
  'Subject: recent draft',
  'Message-ID: <status-recent@example.test>',
  '',
  'text',
  '',
].join('\r\n');

/**
 * Session `selector` has Drafts selected and appends to it; both ask STATUS Drafts (RECENT).
 * The STATUS lines are compared: Dovecot's OK to the selecting session carries [CLIENTBUG]
 * (RFC 9051 6.3.11 advises against STATUS of the selected mailbox), which RFC 3501 does not ask for.
 */
async function exchange(server: Servers['bridge']): Promise<string[]> {
  const selector = await rawSession(server.port, server.user, server.password);
  const other = await rawSession(server.port, server.user, server.password);
  try {
    await selector.run('SELECT Drafts');
    await selector.append('Drafts', draft);
    const mine = await selector.run('STATUS Drafts (RECENT)');
    const theirs = await other.run('STATUS Drafts (RECENT)');
    return [mine, theirs].flatMap((answer) => untagged(normalise(answer).join('\r\n')));
  } finally {
    selector.close();
    other.close();
  }
}

test("STATUS RECENT after the selecting session's own APPEND: 1 in that session, 0 in another", async () => {
  const dovecot = await exchange(servers.current.dovecot);
  const bridge = await exchange(servers.current.bridge);
  expect(dovecot).toEqual(['STATUS Drafts (RECENT 1)', 'STATUS Drafts (RECENT 0)']);
  expect(bridge).toEqual(dovecot);
});

/** The selecting session's own APPEND and EXPUNGE, answers normalised: their untagged RECENT. */
async function ownChanges(server: Servers['bridge']): Promise<string[][]> {
  const s = await rawSession(server.port, server.user, server.password);
  try {
    await s.run('SELECT Drafts');
    const answers = [normalise(await s.append('Drafts', draft.replace('status-recent@', 'own-1@'), '()'))];
    answers.push(normalise(await s.append('Drafts', draft.replace('status-recent@', 'own-2@'), '()')));
    answers.push(normalise(await s.run('STORE * +FLAGS.SILENT (\\Deleted)')));
    answers.push(normalise(await s.run('EXPUNGE')));
    answers.push(normalise(await s.run('NOOP')));
    return answers;
  } finally {
    s.close();
  }
}

test('the selecting session hears its RECENT count change with its own APPEND and EXPUNGE (7.3.2)', async () => {
  const dovecot = await ownChanges(servers.current.dovecot);
  expect(dovecot[0].join('\n')).toMatch(/^\* 1 RECENT$/m);
  expect(dovecot[3].join('\n')).toMatch(/^\* 1 RECENT$/m);
  expect(await ownChanges(servers.current.bridge)).toEqual(dovecot);
});
