import type { AddressInfo } from 'node:net';
import { IMAPServer } from '@mailbridge/imap-core';
import { afterEach, expect, test } from 'vitest';
import { ChangeJournal } from '../../src/domain/change-journal';
import { createLogger } from '../../src/log';
import type { ConnectionHost, MailboxBackend } from '../../src/imap/engine';
import { MailboxRefused } from '../../src/imap/engine';
import { bindEngine } from '../../src/imap/engine-adapter';
import { ImapError } from '../../src/imap/imap-error';
import { type RawSession, rawSession } from '../support/raw-session';

/**
 * The engine boundary (src/imap/engine-adapter.ts) on a real imap-core server over loopback:
 * typed results and refusals come out as imap-core's answers, untagged data through the
 * session's writer, and the optional methods decide which capabilities are offered.
 */

const servers: Array<InstanceType<typeof IMAPServer>> = [];
const sessions: RawSession[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) s.close();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(resolve))));
});

const host: ConnectionHost = {
  connect: () => undefined,
  closed: () => undefined,
  login: async (login) => (login.password === 'right' ? { user: { id: 'u', username: login.username } } : null),
};

const unused = async (): Promise<never> => {
  throw new Error('not called by this test');
};

/** A backend with INBOX of two messages (UIDs 1 and 2); `extra` adds or replaces methods. */
function backend(extra: Partial<MailboxBackend> = {}): MailboxBackend {
  return {
    list: async () => [{ path: 'INBOX', specialUse: null, flags: [], delimiter: '/' }],
    lsub: unused,
    subscribe: unused,
    unsubscribe: unused,
    status: unused,
    create: unused,
    rename: unused,
    delete: unused,
    open: async (_session, path) => {
      if (path !== 'INBOX') throw new MailboxRefused('NONEXISTENT');
      return {
        key: 'u\u0000INBOX',
        recent: 0,
        unseen: 0,
        specialUse: null,
        uidValidity: 7,
        uidNext: 3,
        highestModseq: 1,
        mailboxId: 'M1',
        uids: [1, 2],
        flags: ['\\Seen'],
      };
    },
    fetch: unused,
    store: unused,
    copy: unused,
    move: unused,
    expunge: unused,
    append: unused,
    search: unused,
    recentCount: () => 0,
    folderPath: unused,
    close: () => undefined,
    ...extra,
  };
}

async function start(b: MailboxBackend): Promise<RawSession> {
  const server = new IMAPServer({ logger: createLogger('fatal'), ignoreSTARTTLS: true });
  const journal = new ChangeJournal();
  server.notifier = journal;
  bindEngine(server, b, host, createLogger('fatal'), journal);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const s = await rawSession((server.server.address() as AddressInfo).port, 'u', 'right');
  sessions.push(s);
  return s;
}

test('SORT and THREAD are offered only by a backend that implements them', async () => {
  const without = await start(backend());
  const plain = await without.run('CAPABILITY');
  expect(plain).toMatch(/^\* CAPABILITY .*IMAP4rev1/m);
  expect(plain).not.toMatch(/ SORT| THREAD=/);
  await without.run('SELECT INBOX');
  expect(await without.run('SORT (ARRIVAL) UTF-8 ALL')).toMatch(/^t\d+ (BAD|NO)/m);

  const withSort = await start(
    backend({
      sort: async () => ({ uidList: [2, 1], highestModseq: 1 }),
      thread: async () => ({ threads: [] }),
    }),
  );
  expect(await withSort.run('CAPABILITY')).toMatch(/ SORT .*THREAD=ORDEREDSUBJECT THREAD=REFERENCES/);
  await withSort.run('SELECT INBOX');
  expect(await withSort.run('SORT (ARRIVAL) UTF-8 ALL')).toMatch(/^\* SORT 2 1\r\nt\d+ OK/m);
});

test('a MailboxRefused is the engine’s own NO with its code; other failures NO with the ImapError’s', async () => {
  const s = await start(
    backend({
      status: async () => {
        throw new ImapError('UNAVAILABLE', 'Mail vendor unreachable, try again shortly');
      },
    }),
  );
  expect(await s.run('SELECT Elsewhere')).toMatch(/^t\d+ NO \[NONEXISTENT\]/m);
  expect(await s.run('STATUS INBOX (MESSAGES)')).toMatch(
    /^t\d+ NO \[UNAVAILABLE\] Mail vendor unreachable, try again shortly\r\n/m,
  );
  expect(await s.run('LOGOUT')).toMatch(/^\* BYE/m);
});

test('untagged data goes out through the session’s writer, in the session’s sequence numbers', async () => {
  const s = await start(
    backend({
      store: async (session, _mailbox, update) => {
        for (const uid of update.messages)
          session.untagged.fetchFlags(uid, { uid, flags: ['\\Flagged'], modseq: false });
        return [];
      },
      expunge: async (session) => {
        session.untagged.expunge([1]);
      },
    }),
  );
  await s.run('SELECT INBOX');
  expect(await s.run('UID STORE 2 +FLAGS (\\Flagged)')).toMatch(
    /^\* 2 FETCH \(UID 2 FLAGS \(\\Flagged\)\)\r\nt\d+ OK/m,
  );
  expect(await s.run('EXPUNGE')).toMatch(/^\* 1 EXPUNGE\r\nt\d+ OK/m);
  // UID 2 moved up to sequence number 1
  expect(await s.run('UID STORE 2 +FLAGS (\\Flagged)')).toMatch(/^\* 1 FETCH \(UID 2 FLAGS \(\\Flagged\)\)\r\n/m);
});

test('a login the host refuses is NO [AUTHENTICATIONFAILED]; a thrown ImapError answers with its code', async () => {
  const server = new IMAPServer({ logger: createLogger('fatal'), ignoreSTARTTLS: true });
  const journal = new ChangeJournal();
  server.notifier = journal;
  bindEngine(
    server,
    backend(),
    {
      ...host,
      login: async (login) => {
        if (login.username === 'moving') throw new ImapError('UNAVAILABLE', 'This mailbox is moving');
        return null;
      },
    },
    createLogger('fatal'),
    journal,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const s = await rawSession((server.server.address() as AddressInfo).port, 'u');
  sessions.push(s);
  expect(await s.run('LOGIN wrong secret')).toMatch(/^t\d+ NO \[AUTHENTICATIONFAILED\]/m);
  expect(await s.run('LOGIN moving secret')).toMatch(/^t\d+ NO \[UNAVAILABLE\] This mailbox is moving\r\n/m);
});
