import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SecretStore, importInitialTokens } from '../../src/store/secrets';
import { NeedsNewTokensError } from '../../src/upstream/errors';
import { ManualClock } from '../support/manual-clock';
import { hour, mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness({ messages: 20 });
/** Every token any test saw; none may appear in the captured log. */
const seen = new Set<string>();

function remember(secrets: SecretStore): void {
  const a = secrets.get(mailbox);
  if (a) for (const t of [a.accessToken, a.refreshToken]) seen.add(t);
}

const secretsFile = () => path.join(h.stateDir, 'secrets.json');

afterAll(() => {
  expect(seen.size).toBeGreaterThan(6);
  for (const t of seen) expect(h.logText).not.toContain(t);
  expect(h.logText).toContain('access token refreshed');
});

describe('token lifecycle', () => {
  test('expiry: one refresh for 20 concurrent callers, rotated pair persisted and used after a restart', async () => {
    await h.fresh();
    const first = h.client();
    await first.client.mailbox(mailbox).listFolders();
    const before = first.secrets.get(mailbox)!;
    remember(first.secrets);
    h.sandbox.advanceClock(hour + 60_000);
    h.sandbox.resetStats();
    await Promise.all(Array.from({ length: 20 }, () => first.client.mailbox(mailbox).listFolders()));
    expect(h.sandbox.stats(mailbox).refreshes).toBe(1);
    const after = SecretStore.open(h.stateDir).get(mailbox)!;
    remember(first.secrets);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(fs.statSync(secretsFile()).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(h.stateDir)).toEqual(['secrets.json']);

    // "restart": a new store and client from the same state dir (the config still holds the
    // first pair, which must not be re-imported), an hour later again
    await first.client.close();
    h.sandbox.advanceClock(hour + 60_000);
    const second = h.client();
    expect(second.secrets.get(mailbox)!.refreshToken).toBe(after.refreshToken);
    h.sandbox.resetStats();
    await second.client.mailbox(mailbox).listFolders();
    expect(h.sandbox.stats(mailbox).refreshes).toBe(1);
    expect(second.secrets.get(mailbox)!.refreshToken).not.toBe(after.refreshToken);
    remember(second.secrets);
  });

  test('a write rejected as TOKEN_EXPIRED is applied exactly once after the refresh', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    const api = client.mailbox(mailbox);
    const [thread] = (await api.listThreads({ folder: 'INBOX', limit: 1 })).threads;
    remember(secrets);
    h.sandbox.advanceClock(hour + 60_000);
    h.sandbox.resetStats();
    const result = await api.setFlags([thread.last_message_uid], { is_starred: true });
    expect(result.done).toEqual([thread.last_message_uid]);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ refreshes: 1, commands: { flag: 1 } });
    remember(secrets);
  });

  test('the refresh waits its turn in the gate: a vendor that counts it (A23) never answers 429', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    const api = client.mailbox(mailbox);
    remember(secrets);
    h.sandbox.setLatency(400);
    // 14 requests reach the vendor and stay in flight...
    const inFlight: Array<Promise<unknown>> = [];
    for (let i = 0; i < 14; i++) {
      inFlight.push(api.listFolders());
      await new Promise((r) => setImmediate(r)); // one request each: reads of one turn share one
    }
    for (let i = 0; i < 100 && h.sandbox.stats(mailbox).requests < 14; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.sandbox.stats(mailbox).requests).toBe(14);
    // ...then the access token expires: the 15th is refused, and counted, as TOKEN_EXPIRED
    h.sandbox.advanceClock(hour + 60_000);
    const late = api.listFolders();
    await Promise.all([...inFlight, late]);
    remember(secrets);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ refreshes: 1, rateLimited: 0, requests: 17 });
  });

  test('15 requests in flight all refused as expired: one refresh, all 15 repeated, no deadlock', async () => {
    await h.fresh();
    const ids = (await h.client().client.mailbox(mailbox).listThreads({ folder: 'INBOX', limit: 15 })).threads.map(
      (t) => t.last_message_uid,
    );
    expect(ids).toHaveLength(15);
    h.clock.skip(1_000); // the listing's second passes
    const { client, secrets } = h.client();
    remember(secrets);
    h.sandbox.advanceClock(hour + 60_000);
    h.sandbox.resetStats();
    h.sandbox.setLatency(100);
    // reads issued in separate turns do not share: 15 requests, all granted at once, all refused at once
    const reads: Array<Promise<{ messages: unknown[] }>> = [];
    for (const id of ids) {
      reads.push(client.mailbox(mailbox).getMessages([id], []));
      await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.all(reads);
    expect(results.map((r) => r.messages.length)).toEqual(ids.map(() => 1));
    remember(secrets);
    const stats = h.sandbox.stats(mailbox);
    expect(stats).toMatchObject({ refreshes: 1, rateLimited: 0, commands: { get_messages: 15 } });
    // 15 refused + the refresh + the 15 repeated, which may share requests when the refresh
    // releases them in one turn (a loaded machine): never more than one repeat each
    expect(stats.requests).toBeGreaterThanOrEqual(15 + 1 + 1);
    expect(stats.requests).toBeLessThanOrEqual(15 + 1 + 15);
  });

  test('a second process that rotated the pair first is followed, not fought', async () => {
    await h.fresh();
    const a = h.client();
    const b = h.client();
    await Promise.all([a.client.mailbox(mailbox).listFolders(), b.client.mailbox(mailbox).listFolders()]);
    remember(a.secrets);
    h.sandbox.advanceClock(hour + 60_000);
    h.sandbox.resetStats();
    await a.client.mailbox(mailbox).listFolders();
    // b still holds the old access token in memory; its refresh token died with a's rotation
    await b.client.mailbox(mailbox).listFolders();
    expect(h.sandbox.stats(mailbox).refreshes).toBe(1);
    expect(b.secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
    expect(b.secrets.get(mailbox)?.accessToken).toBe(a.secrets.get(mailbox)?.accessToken);
    remember(a.secrets);
  });

  test('a dead refresh token marks the account, persistently, and says how to fix it', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    remember(secrets);
    h.sandbox.advanceClock(16 * 24 * hour);
    h.sandbox.resetStats();
    const err = await client
      .mailbox(mailbox)
      .listFolders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeedsNewTokensError);
    expect((err as Error).message).toContain(`mailbridge account add --mailbox ${mailbox}`);
    expect(SecretStore.open(h.stateDir).get(mailbox)?.needsNewTokens).toMatch(/mailbridge account add/);
    // later calls fail at once, without another round trip with the dead pair
    h.sandbox.resetStats();
    await expect(client.mailbox(mailbox).listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ requests: 0, refreshes: 0 });
    // "mailbridge account add" in another process stores a new pair; the running client picks it up
    const fresh = h.sandbox.issueTokens(mailbox);
    for (const t of [fresh.accessToken, fresh.refreshToken]) seen.add(t);
    SecretStore.open(h.stateDir).putTokens(mailbox, fresh);
    expect((await client.mailbox(mailbox).listFolders()).length).toBeGreaterThan(0);
    expect(secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
  });
});

describe('revoked tokens', () => {
  test('one refused refresh marks the account; calls cost no request until a retry is due; a stored pair recovers', async () => {
    await h.fresh();
    const clock = new ManualClock();
    const { client, secrets } = h.client({}, h.config, clock);
    const api = client.mailbox(mailbox);
    await api.listFolders();
    remember(secrets);
    // the user generated a new key pair in webmail: the vendor refuses both tokens
    h.sandbox.revokeTokens(mailbox);
    h.sandbox.resetStats();
    const err = await api.listFolders().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeedsNewTokensError);
    expect((err as Error).message).toContain(`mailbridge account add --mailbox ${mailbox}`);
    expect(secrets.get(mailbox)?.needsNewTokens).toMatch(/mailbridge account add/);
    // the refused command and the refused refresh
    expect(h.sandbox.received()).toBe(2);

    h.sandbox.resetStats();
    for (let i = 0; i < 20; i++) await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
    clock.skip(59_000);
    await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
    expect(h.sandbox.received()).toBe(0);
    // a minute after: one retry of the refresh token, then two minutes of quiet, then four...
    for (const wait of [1_000, 120_000, 240_000]) {
      clock.skip(wait - 1);
      await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
      expect(h.sandbox.received()).toBe(0);
      clock.skip(1);
      h.sandbox.resetStats();
      await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
      await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
      expect(h.sandbox.received()).toBe(1);
      h.sandbox.resetStats();
    }

    // "mailbridge account add" in another process: the next call uses the new pair, no restart
    const fresh = h.sandbox.issueTokens(mailbox);
    for (const t of [fresh.accessToken, fresh.refreshToken]) seen.add(t);
    SecretStore.open(h.stateDir).putTokens(mailbox, fresh);
    expect((await api.listFolders()).length).toBeGreaterThan(0);
    expect(h.sandbox.received()).toBe(1);
    expect(secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
  });

  test('a revoked access token with a live refresh token is refreshed, not reported', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    const api = client.mailbox(mailbox);
    await api.listFolders();
    // another pair issued and rotated elsewhere would leave this one's refresh token alive: revoke
    // only the access token by storing a made-up one
    const stored = secrets.get(mailbox)!;
    secrets.putTokens(mailbox, { accessToken: 'sbx_at_unknown_to_the_vendor', refreshToken: stored.refreshToken });
    h.sandbox.resetStats();
    expect((await api.listFolders()).length).toBeGreaterThan(0);
    expect(h.sandbox.stats(mailbox).refreshes).toBe(1);
    expect(secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
    remember(secrets);
  });

  test('a reload brings config tokens in place of a pair the vendor refused', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    h.sandbox.revokeTokens(mailbox);
    await expect(client.mailbox(mailbox).listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
    const fresh = h.sandbox.issueTokens(mailbox);
    for (const t of [fresh.accessToken, fresh.refreshToken]) seen.add(t);
    const edited = { ...h.config, accounts: [{ ...h.config.accounts[0], ...fresh }] };
    await importInitialTokens(edited, secrets);
    expect(secrets.get(mailbox)?.accessToken).toBe(fresh.accessToken);
    expect(secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
    expect((await client.mailbox(mailbox).listFolders()).length).toBeGreaterThan(0);
  });
});

describe('secret store', () => {
  test('mode 0600 enforced on open, initial tokens imported only once, bridge password hashed', async () => {
    await h.fresh();
    const { secrets } = h.client();
    remember(secrets);
    fs.chmodSync(secretsFile(), 0o644);
    const reopened = SecretStore.open(h.stateDir);
    expect(fs.statSync(secretsFile()).mode & 0o777).toBe(0o600);
    expect(reopened.mailboxes()).toEqual([mailbox]);

    reopened.putTokens(mailbox, { accessToken: 'sbx_at_rotated_value_1', refreshToken: 'sbx_rt_rotated_value_1' });
    importInitialTokens(h.config, reopened);
    expect(reopened.get(mailbox)?.refreshToken).toBe('sbx_rt_rotated_value_1');

    const password = reopened.setBridgePassword(mailbox);
    expect(password).toHaveLength(24);
    expect(fs.readFileSync(secretsFile(), 'utf8')).not.toContain(password);
    const again = SecretStore.open(h.stateDir);
    expect(await again.verifyBridgePassword(mailbox, password)).toBe(true);
    expect(await again.verifyBridgePassword(mailbox, `${password}x`)).toBe(false);
    expect(await again.verifyBridgePassword('nobody@sandbox.test', password)).toBe(false);
    // a token rotation keeps the password
    again.putTokens(mailbox, { accessToken: 'sbx_at_rotated_value_2', refreshToken: 'sbx_rt_rotated_value_2' });
    expect(await SecretStore.open(h.stateDir).verifyBridgePassword(mailbox, password)).toBe(true);
  });
});
