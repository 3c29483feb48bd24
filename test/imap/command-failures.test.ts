import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { IMAPServer } from '@mailbridge/imap-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../src/log';
import { ChangeJournal } from '../../src/domain/change-journal';
import { rawSession } from '../support/raw-session';

/**
 * imap-core's command dispatch (patch command-failures): a handler that throws answers its own
 * command with NO [SERVERBUG] and an error log line; the session and the server go on. The
 * hooks throw on purpose, as a bug in a handler would.
 */

let server: InstanceType<typeof IMAPServer>;
let port: number;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  server = new IMAPServer({ logger: createLogger('error', sink), ignoreSTARTTLS: true });
  server.notifier = new ChangeJournal();
  server.onAuth = (_login, _session, callback) => callback(null, { user: { id: 'u', username: 'u' } });
  server.onOpen = (_path, _session, callback) =>
    callback(null, { _id: 'u\u0000INBOX', uidValidity: 1, uidNext: 3, modifyIndex: 1, uidList: [1, 2] });
  server.onSearch = () => {
    throw new TypeError('a bug in the search hook');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(resolve));
});

test('a throwing handler answers NO [SERVERBUG], logs an error and the session goes on', async () => {
  const s = await rawSession(port, 'u', 'secret-password');
  expect(await s.run('SELECT INBOX')).toMatch(/^t2 OK/m);
  expect(await s.run('SEARCH ALL')).toMatch(/^t3 NO \[SERVERBUG\] SEARCH failed/m);
  expect(await s.run('NOOP')).toMatch(/^t4 OK/m);
  expect(await s.run('UID SEARCH ALL')).toMatch(/^t5 NO \[SERVERBUG\]/m);
  expect(await s.run('FETCH 1 (UID)')).toMatch(/^t6 (OK|NO)/m);
  s.close();
  const errors = logLines.map((l) => JSON.parse(l) as { level: number; msg: string });
  expect(errors.filter((e) => e.level >= 50 && /SEARCH failed: a bug in the search hook/.test(e.msg))).toHaveLength(2);
  expect(logLines.join('')).not.toContain('secret-password');
});
