import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { SecretStore } from '../../src/store/secrets';
import type { MailboxClient } from '../../src/upstream/mailbox-client';
import { type ErrorKind, VendorError } from '../../src/upstream/errors';
import { Http } from '../../src/upstream/http';
import type { Command, SendRequest } from '../../src/upstream/types';
import { VendorClient } from '../../src/upstream/vendor-client';
import { FixtureServer } from './fixture-server';
import { credential, type Fixture, fill, loadFixtures, type Values } from './fixtures';

/**
 * The bridge's vendor client against the hand-written fixtures: each fixture answer is served
 * from a loopback server, and the request the client made must be the fixture request. A drift
 * of the client from the spec (or from the assumptions of docs/vendor.md) shows here.
 */

const mailbox = 'alice@sandbox.test';
const fixtures = new Map(loadFixtures().map((f) => [f.file, f]));
const values: Values = {
  access_token: 'at_fixture_1',
  refresh_token: 'rt_fixture_1',
  new_access_token: 'at_fixture_2',
  new_refresh_token: 'rt_fixture_2',
  api_key: 'key_fixture',
  unknown_api_key: 'key_unknown',
  message_uid: 'm_5f2a',
  missing_id: 'm_missing',
  attachment_id: 'att_1',
  mime_type: 'application/pdf',
  label: 'Work',
  cursor: 'c_page2',
  search_text: 'figures',
  quarantine_id: 'q_7c1e',
  spam_subject: 'You won',
  unstorable_spam_subject: 'You won again',
  shared_domain: 'sandbox.test',
  new_local_part: 'contract',
};

let server: FixtureServer;
let dirs: string[] = [];
let clients: VendorClient[] = [];

beforeAll(async () => {
  server = await FixtureServer.start();
});

afterAll(async () => {
  await server?.close();
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

interface Bridge {
  client: VendorClient;
  api: MailboxClient;
  secrets: SecretStore;
}

function bridge(apiKey = values.api_key): Bridge {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-contract-'));
  dirs.push(stateDir);
  const config = parseConfig({
    vendor: { readUrl: server.url, mailUrl: server.url, graphUrl: server.url, apiKey, timeoutMs: 5_000 },
    stateDir,
  });
  const secrets = SecretStore.open(stateDir);
  secrets.putTokens(mailbox, { accessToken: values.access_token, refreshToken: values.refresh_token });
  const client = new VendorClient(config.vendor, config.assumptions, secrets, createLogger('silent'));
  clients.push(client);
  return { client, api: client.mailbox(mailbox), secrets };
}

const fixture = (file: string): Fixture => {
  const f = fixtures.get(file);
  if (!f) throw new Error(`no fixture ${file}`);
  return f;
};

/** The fixture's request body with the client-side values filled in. */
const requestBody = <T>(file: string): T => fill(fixture(file).request.body, values) as T;

/** The error a call fails with, checked against what the spec's code means. */
async function failure(call: Promise<unknown>, code: string, kind: ErrorKind, status: number): Promise<VendorError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VendorError);
  const e = err as VendorError;
  expect({ code: e.code, kind: e.kind, status: e.httpStatus }).toEqual({ code, kind, status });
  return e;
}

/** The HTTP layer's reading of an error answer the client itself never provokes (e.g. no Authorization). */
async function rawFailure(file: string, code: string, kind: ErrorKind, status: number): Promise<VendorError> {
  const http = new Http(5_000);
  try {
    const req = fill(fixture(file).request, values);
    return await failure(http.json(req.method, `${server.url}${req.path}`, req.headers, req.body), code, kind, status);
  } finally {
    await http.close();
  }
}

const readText = async (stream: NodeJS.ReadableStream): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

interface Case {
  /** The fixtures answered in order (default: the case's own), with per-exchange values. */
  chain?: Array<[file: string, overrides?: Values]>;
  run(): Promise<void>;
}

const cases: Record<string, Case> = {
  'read-list-folders.json': {
    async run() {
      expect(await bridge().api.folderList()).toEqual({
        folders: [{ name: 'INBOX', role: 'inbox', total: 120, unread: 7 }],
        labels: ['Work'],
      });
    },
  },
  'read-list-threads.json': {
    async run() {
      // A1: asked for more than 100, the client asks for 100
      const page = await bridge().api.listThreads({ folder: 'INBOX', limit: 500 });
      expect(page.nextCursor).toBe('c_page2');
      expect(page.threads).toHaveLength(1);
      expect(page.threads[0]).toMatchObject({ last_message_uid: 'm_5f2a', message_uids: ['m_older', 'm_5f2a'] });
    },
  },
  'read-list-threads-cursor.json': {
    async run() {
      const page = await bridge().api.listThreads({ folder: 'Archive', cursor: 'c_page2' });
      expect(page).toMatchObject({ nextCursor: null, threads: [{ last_message_uid: 'm_last' }] });
    },
  },
  'read-list-threads-label.json': {
    async run() {
      const page = await bridge().api.listThreads({ label: 'Work' });
      expect(page).toMatchObject({ nextCursor: null, threads: [{ message_uids: ['m_5f2a'] }] });
    },
  },
  'read-list-threads-over-limit.json': {
    async run() {
      const [result] = await bridge().api.run(
        requestBody<{ commands: Command[] }>('read-list-threads-over-limit.json').commands,
      );
      expect(result).toMatchObject({ id: '0', type: 'ERROR', code: 'INVALID_ARGS' });
    },
  },
  'read-get-messages.json': {
    async run() {
      const { messages, notFound } = await bridge().api.getMessages(['m_5f2a', 'm_missing']);
      expect(notFound).toEqual(['m_missing']);
      expect(messages.map((m) => m.message_uid)).toEqual(['m_5f2a']);
      expect(messages[0].attachments?.[0]).toMatchObject({ attachment_id: 'att_1', mime_type: 'application/pdf' });
      expect(messages[0].body?.text).toBe('Figures attached.');
    },
  },
  'read-get-messages-metadata.json': {
    async run() {
      const { messages } = await bridge().api.getMessages(['m_5f2a'], []);
      expect(messages[0]).toMatchObject({ message_uid: 'm_5f2a', is_read: true });
      expect(messages[0].body).toBeUndefined();
    },
  },
  'read-search.json': {
    async run() {
      expect(await bridge().api.search({ query: 'figures', folder: 'INBOX' })).toEqual(['m_5f2a']);
    },
  },
  'read-flag.json': {
    async run() {
      const result = await bridge().api.setFlags(['m_5f2a', 'm_missing'], { is_starred: true });
      expect(result).toEqual({ done: ['m_5f2a'], notFound: ['m_missing'] });
    },
  },
  'read-label.json': {
    async run() {
      const result = await bridge().api.label(['m_5f2a', 'm_missing'], { add: ['Contract'], remove: [] });
      expect(result).toEqual({ done: ['m_5f2a'], notFound: ['m_missing'] });
    },
  },
  'read-move.json': {
    async run() {
      expect(await bridge().api.move(['m_5f2a', 'm_missing'], 'Archive')).toEqual({
        done: ['m_5f2a'],
        notFound: ['m_missing'],
      });
    },
  },
  // A8 and A9: the bridge has no typed call for these (it sends through /v3.0/send); run() carries them
  'read-send-command.json': {
    async run() {
      const [result] = await bridge().api.run(requestBody<{ commands: Command[] }>('read-send-command.json').commands);
      expect(result).toMatchObject({ type: 'SUCCESS', data: { message_uid: 'm_sent_1' } });
    },
  },
  'read-reply-command.json': {
    async run() {
      const [result] = await bridge().api.run(requestBody<{ commands: Command[] }>('read-reply-command.json').commands);
      expect(result).toMatchObject({ type: 'SUCCESS', data: { message_uid: 'm_sent_2' } });
    },
  },
  'read-unknown-command.json': {
    async run() {
      const results = await bridge().api.run(
        requestBody<{ commands: Command[] }>('read-unknown-command.json').commands,
      );
      expect(results.map((r) => [r.command, r.type, r.code])).toEqual([
        ['archive_all', 'ERROR', 'UNKNOWN_COMMAND'],
        ['list_folders', 'SUCCESS', undefined],
      ]);
    },
  },
  'read-missing-auth.json': {
    run: async () => void (await rawFailure('read-missing-auth.json', 'MISSING_AUTH_HEADER', 'auth', 401)),
  },
  'read-invalid-token.json': {
    // read as an auth failure; the client follows it with one refresh, as the access token alone may be revoked
    chain: [
      ['read-invalid-token.json'],
      ['read-invalid-token.json'],
      ['read-token-refresh.json'],
      ['read-list-folders.json', { access_token: values.new_access_token }],
    ],
    async run() {
      await rawFailure('read-invalid-token.json', 'INVALID_TOKEN', 'auth', 401);
      expect((await bridge().api.listFolders()).map((f) => f.name)).toEqual(['INBOX']);
    },
  },
  'read-token-expired.json': {
    run: async () => void (await rawFailure('read-token-expired.json', 'TOKEN_EXPIRED', 'expired', 401)),
  },
  'read-token-refresh.json': {
    // expired -> the refresh with the stored refresh token -> the same command with the new access token
    chain: [
      ['read-token-expired.json'],
      ['read-token-refresh.json'],
      ['read-list-folders.json', { access_token: values.new_access_token }],
    ],
    async run() {
      const b = bridge();
      expect((await b.api.listFolders()).map((f) => f.name)).toEqual(['INBOX']);
      expect(b.secrets.get(mailbox)).toMatchObject({ accessToken: 'at_fixture_2', refreshToken: 'rt_fixture_2' });
    },
  },
  'read-rate-limited.json': {
    // waits the Retry-After second, then repeats the request
    chain: [['read-rate-limited.json'], ['read-list-folders.json']],
    async run() {
      expect((await bridge().api.listFolders()).map((f) => f.name)).toEqual(['INBOX']);
    },
  },
  'read-auth-unavailable.json': {
    // nothing happened at the vendor, so the read is repeated
    chain: [['read-auth-unavailable.json'], ['read-list-folders.json']],
    async run() {
      expect((await bridge().api.listFolders()).map((f) => f.name)).toEqual(['INBOX']);
    },
  },
  'read-raw.json': {
    async run() {
      const raw = await bridge().api.raw('m_5f2a', 'att_1');
      expect(raw.contentType).toBe('application/pdf');
      expect(await readText(raw.stream)).toBe('%PDF-1.4 contract fixture bytes');
    },
  },
  'mail-send.json': {
    async run() {
      expect(await bridge().client.send(requestBody<SendRequest>('mail-send.json'))).toEqual({ id: 'em_5b1f' });
    },
  },
  'mail-send-spam.json': {
    async run() {
      const e = await failure(bridge().client.send(requestBody('mail-send-spam.json')), 'SPAM_DETECTED', 'spam', 403);
      expect(e.details).toMatchObject({ quarantine_id: 'q_7c1e', detectionId: 'det_91c2', expires_in: '3 hours' });
    },
  },
  'mail-send-spam-unstorable.json': {
    async run() {
      const req = requestBody<SendRequest>('mail-send-spam-unstorable.json');
      const e = await failure(bridge().client.send(req), 'SPAM_DETECTED', 'spam', 403);
      expect(e.details).toMatchObject({ quarantine_id: null, release_instructions: null, expires_in: null });
    },
  },
  'mail-send-validation.json': {
    async run() {
      const req = requestBody<SendRequest>('mail-send-validation.json');
      await failure(bridge().client.send(req), 'VALIDATION_ERROR', 'invalid', 400);
    },
  },
  'mail-send-missing-auth.json': {
    run: async () => void (await rawFailure('mail-send-missing-auth.json', 'MISSING_AUTH_HEADER', 'auth', 401)),
  },
  'mail-send-invalid-key.json': {
    async run() {
      const req = requestBody<SendRequest>('mail-send-invalid-key.json');
      await failure(bridge(values.unknown_api_key).client.send(req), 'INVALID_API_KEY', 'auth', 401);
    },
  },
  'mail-release.json': {
    async run() {
      expect((await bridge().client.releaseQuarantine('q_7c1e')).id).toBe('em_77aa');
    },
  },
  'mail-release-missing-id.json': {
    async run() {
      await failure(bridge().client.releaseQuarantine(''), 'MISSING_QUARANTINE_ID', 'invalid', 400);
    },
  },
  'mail-release-not-found.json': {
    async run() {
      await failure(bridge().client.releaseQuarantine('q_unknown'), 'QUARANTINE_NOT_FOUND', 'not_found', 404);
    },
  },
  'mail-release-forbidden.json': {
    async run() {
      await failure(bridge().client.releaseQuarantine('q_7c1e'), 'QUARANTINE_FORBIDDEN', 'forbidden', 403);
    },
  },
  'mail-release-expired.json': {
    async run() {
      await failure(bridge().client.releaseQuarantine('q_7c1e'), 'QUARANTINE_EXPIRED', 'gone', 410);
    },
  },
  'graph-free-domains.json': {
    async run() {
      expect(await bridge().client.sharedDomains()).toEqual({
        success: true,
        domains: ['sandbox.test', 'shared-mail.test'],
        responseTime: '3ms',
      });
    },
  },
  'graph-create-sender.json': {
    async run() {
      const created = await bridge().client.createSender({
        domain: 'sandbox.test',
        localPart: 'contract',
        name: 'Contract Box',
      });
      expect(created).toEqual({ success: true, sender: { email: 'contract@sandbox.test', domain: 'sandbox.test' } });
    },
  },
};

describe('the vendor client makes the fixture requests and reads the fixture answers', () => {
  test('every fixture has a client case, and every case a fixture', () => {
    expect(Object.keys(cases).sort()).toEqual([...fixtures.keys()].sort());
  });

  test.each(Object.keys(cases).sort())('%s', async (file) => {
    const c = cases[file];
    const chain = (c.chain ?? [[file]]).map(([name, overrides]) => ({
      fixture: fixture(name),
      values: { ...values, ...overrides },
    }));
    server.serve(...chain);
    await c.run();
    expect(server.recorded).toHaveLength(chain.length);
    for (const [i, { fixture: f, values: v }] of chain.entries()) {
      const want = fill(f.request, v);
      const got = server.recorded[i];
      expect({ ...got, authorization: credential(got.authorization) }, `request ${i + 1} of ${file}`).toEqual({
        method: want.method,
        path: want.path,
        query: want.query ?? {},
        authorization: credential(want.headers.authorization),
        body: want.body,
      });
    }
  });
});
