import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/log';
import { SecretStore, importInitialTokens } from '../../src/store/secrets';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { NeedsNewTokensError, VendorError, errorKinds } from '../../src/upstream/errors';
import { MailboxClient } from '../../src/upstream/mailbox-client';
import { RateLimiter } from '../../src/upstream/rate-limiter';
import { createVendorClient, type VendorClient } from '../../src/upstream/vendor-client';

const mailbox = 'alice@sandbox.test';
const hour = 3600_000;

let sandbox: Sandbox;
let stateDir: string;
let config: Config;
let logText = '';
let clients: VendorClient[] = [];

const logger = createLogger(
  'debug',
  new Writable({
    write(chunk, _enc, cb) {
      logText += chunk.toString();
      cb();
    },
  }) as unknown as Parameters<typeof createLogger>[1],
);

function newClient(): { client: VendorClient; secrets: SecretStore } {
  const secrets = SecretStore.open(stateDir);
  importInitialTokens(config, secrets);
  const client = createVendorClient(config, secrets, logger);
  clients.push(client);
  return { client, secrets };
}

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 300 });
});

afterAll(async () => {
  await sandbox?.close();
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  fs.rmSync(stateDir, { recursive: true, force: true });
});

/** New token pair and state dir; waits out the previous test's requests in the vendor's 1 s window. */
async function freshState(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1100));
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-upstream-'));
  const tokens = sandbox.issueTokens(mailbox);
  config = parseConfig({
    vendor: { readUrl: sandbox.urls.read, mailUrl: sandbox.urls.mail, graphUrl: sandbox.urls.graph, apiKey: sandbox.apiKey, timeoutMs: 10_000 },
    accounts: [{ mailbox, ...tokens }],
    stateDir,
  });
  sandbox.resetStats();
  sandbox.setFaults({});
  sandbox.setLatency(0);
}

describe('command batching', () => {
  test('ids split into groups of 50, 20 commands a request, results matched back by id', async () => {
    await freshState();
    const { client } = newClient();
    const api = client.mailbox(mailbox);
    const threads = await api.listAllThreads('INBOX');
    const ids = threads.flatMap((t) => t.message_uids).slice(0, 130);
    sandbox.resetStats();
    const { messages, notFound } = await api.getMessages([...ids, 'm_does_not_exist'], []);
    expect(messages.map((m) => m.message_uid)).toEqual(ids);
    expect(notFound).toEqual(['m_does_not_exist']);
    const stats = sandbox.stats(mailbox);
    expect(stats.requests).toBe(1);
    expect(stats.commands.get_messages).toBe(3);

    sandbox.resetStats();
    const commands = Array.from({ length: 25 }, (_, i) => ({ command: 'list_threads', args: { folder: 'INBOX', limit: i + 1 } }));
    const results = await api.run(commands);
    expect(sandbox.stats(mailbox).requests).toBe(2);
    results.forEach((r, i) => expect((r.data as { threads: unknown[] }).threads.length).toBe(Math.min(i + 1, threads.length)));
  });
});

describe('rate limits', () => {
  test('300 concurrent calls never exceed 15 starts per second nor 15 in flight', async () => {
    await freshState();
    sandbox.setLatency(30);
    const { client } = newClient();
    const api = client.mailbox(mailbox);
    const started = Date.now();
    await Promise.all(Array.from({ length: 300 }, () => api.listFolders()));
    const stats = sandbox.stats(mailbox);
    expect(stats.requests).toBe(300);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(15);
    expect(stats.maxInFlight).toBeLessThanOrEqual(15);
    expect(stats.rateLimited).toBe(0);
    // and it does not crawl either: 300 requests at 15/s need just under 20 s
    expect(Date.now() - started).toBeLessThan(26_000);
  }, 60_000);

  test('a 429 is waited out for Retry-After, then the call succeeds', async () => {
    await freshState();
    sandbox.setLatency(50);
    const { client } = newClient();
    const tokens = SecretStore.open(stateDir);
    // a client whose limiter is deliberately too generous, to provoke the vendor's 429
    const greedy = new MailboxClient(
      mailbox,
      (client as unknown as { http: ConstructorParameters<typeof MailboxClient>[1] }).http,
      sandbox.urls.read,
      config.assumptions,
      { current: () => tokens.get(mailbox)!.accessToken, refresh: async () => tokens.get(mailbox)!.accessToken } as never,
      new RateLimiter(100, 100),
      logger,
    );
    const results = await Promise.all(Array.from({ length: 30 }, () => greedy.listFolders()));
    expect(results.every((r) => r.length > 0)).toBe(true);
    expect(sandbox.stats(mailbox).rateLimited).toBeGreaterThan(0);
    expect(logText).toContain('Retry-After');
  }, 60_000);
});

describe('token lifecycle', () => {
  test('expiry: one refresh for 20 concurrent callers, rotated pair persisted and used after a restart', async () => {
    await freshState();
    const first = newClient();
    await first.client.mailbox(mailbox).listFolders();
    const before = first.secrets.get(mailbox)!;
    sandbox.advanceClock(hour + 60_000);
    sandbox.resetStats();
    await Promise.all(Array.from({ length: 20 }, () => first.client.mailbox(mailbox).listFolders()));
    expect(sandbox.stats(mailbox).refreshes).toBe(1);
    const after = SecretStore.open(stateDir).get(mailbox)!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(fs.statSync(path.join(stateDir, 'secrets.json')).mode & 0o777).toBe(0o600);

    // "restart": a new store and client from the same state dir, an hour later again
    await first.client.close();
    sandbox.advanceClock(hour + 60_000);
    const second = newClient();
    await second.client.mailbox(mailbox).listFolders();
    expect(second.secrets.get(mailbox)!.refreshToken).not.toBe(after.refreshToken);
    for (const t of [before.accessToken, before.refreshToken, after.accessToken, after.refreshToken]) expect(logText).not.toContain(t);
  });

  test('a dead refresh token marks the account and says how to fix it', async () => {
    await freshState();
    const { client, secrets } = newClient();
    sandbox.advanceClock(16 * 24 * hour);
    await expect(client.mailbox(mailbox).listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
    expect(SecretStore.open(stateDir).get(mailbox)?.needsNewTokens).toMatch(/mailbridge account add/);
    await expect(client.mailbox(mailbox).listFolders()).rejects.toThrow(/mailbridge account add/);
    expect(secrets.get(mailbox)?.needsNewTokens).toBeTruthy();
  });
});

describe('error mapping', () => {
  test('reading interface codes', async () => {
    await freshState();
    const { client } = newClient();
    const api = client.mailbox(mailbox);
    const [bad] = await api.run([{ command: 'list_threads', args: { folder: 'INBOX', limit: 100_000 } }]);
    expect(bad.code).toBe('INVALID_ARGS');
    await expect(api.search({ query: 'x', folder: 'NoSuchFolder' }).catch((e) => (e as VendorError).kind)).resolves.toBe('invalid');
    sandbox.setFaults({ errorRate: 1 });
    await expect(api.listFolders()).rejects.toMatchObject({ code: 'INTERNAL', kind: 'internal' });
    sandbox.setFaults({ unavailableRate: 1 });
    await expect(api.listFolders()).rejects.toMatchObject({ code: 'AUTH_UNAVAILABLE', kind: 'unavailable' });
    sandbox.setFaults({});
    sandbox.revokeTokens(mailbox);
    await expect(api.listFolders()).rejects.toMatchObject({ code: 'INVALID_TOKEN', kind: 'auth' });
  });

  test('send and quarantine codes each map to their kind', async () => {
    await freshState();
    const { client } = newClient();
    const codes = ['INVALID_API_KEY', 'ACCOUNT_BLOCKED', 'NO_CREDITS_LEFT', 'USER_NOT_FOUND', 'MISSING_USER_PRIVILEGES', 'EMAIL_CREDITS_NOT_FOUND', 'CREDENTIAL_TEMPORARILY_BLOCKED', 'IP_TEMPORARILY_BLOCKED', 'INTERNAL_SERVER_ERROR'];
    for (const code of codes) {
      await fetch(`${sandbox.urls.control}/account-state`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, times: 1 }) });
      const err = await client.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'hi', body: '<p>hi</p>' }).catch((e: unknown) => e);
      expect(err, code).toBeInstanceOf(VendorError);
      expect((err as VendorError).code).toBe(code);
      expect((err as VendorError).kind).toBe(errorKinds[code]);
    }
    const spam = (await client.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'lottery winner', body: 'viagra' }).catch((e: unknown) => e)) as VendorError;
    expect(spam.code).toBe('SPAM_DETECTED');
    expect(typeof spam.details.quarantine_id).toBe('string');
    await expect(client.releaseQuarantine('')).rejects.toMatchObject({ code: 'MISSING_QUARANTINE_ID' });
    await expect(client.releaseQuarantine('q_nope')).rejects.toMatchObject({ code: 'QUARANTINE_NOT_FOUND', kind: 'not_found' });
    const released = await client.releaseQuarantine(String(spam.details.quarantine_id));
    expect(released.body).toBeTruthy();
    await expect(client.releaseQuarantine(String(spam.details.quarantine_id))).rejects.toMatchObject({ code: 'QUARANTINE_NOT_FOUND' });
    const again = (await client.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'lottery winner 2', body: 'viagra' }).catch((e: unknown) => e)) as VendorError;
    sandbox.advanceClock(3 * hour + 60_000);
    await expect(client.releaseQuarantine(String(again.details.quarantine_id))).rejects.toMatchObject({ code: 'QUARANTINE_EXPIRED', kind: 'gone' });
    expect((await client.sharedDomains()).domains.length).toBeGreaterThan(0);
  });
});
