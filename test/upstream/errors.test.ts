import { describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config';
import type { SendRequest } from '../../src/upstream/types';
import { NeedsNewTokensError, VendorError, type ErrorKind } from '../../src/upstream/errors';
import { Http } from '../../src/upstream/http';
import { VendorClient } from '../../src/upstream/vendor-client';
import { ManualClock } from '../support/manual-clock';
import { hour, mailbox, useUpstreamHarness } from './harness';

const trafficClock = new ManualClock();
const h = useUpstreamHarness({ messages: 20 }, trafficClock);

/** The error a call rejects with; fails the test when it resolves. */
async function failure(call: Promise<unknown>): Promise<VendorError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VendorError);
  const e = err as VendorError;
  // no credential ever ends up in an error text
  expect(`${e.message} ${JSON.stringify(e.details)}`).not.toContain(h.sandbox.apiKey);
  return e;
}

async function expectCode(call: Promise<unknown>, code: string, kind: ErrorKind): Promise<VendorError> {
  const e = await failure(call);
  expect({ code: e.code, kind: e.kind }).toEqual({ code, kind });
  return e;
}

const spam = (n: number, extra = ''): SendRequest => ({
  to: 'bob@sandbox.test',
  from: mailbox,
  subject: `lottery winner ${n}`,
  body: `<p>hello ${extra}</p>`,
});

async function quarantined(client: VendorClient, req: SendRequest): Promise<string> {
  const e = await expectCode(client.send(req), 'SPAM_DETECTED', 'spam');
  expect(e.httpStatus).toBe(403);
  expect(typeof e.details.detectionId).toBe('string');
  return String(e.details.quarantine_id);
}

describe('reading interface', () => {
  test('HTTP-level codes (7.2) map to their kinds', async () => {
    await h.fresh();
    const http = new Http(5000);
    const post = (authorization?: string) =>
      http.json('POST', `${h.sandbox.urls.read}/v1`, authorization ? { authorization } : {}, {
        commands: [{ command: 'list_folders' }],
      });
    try {
      await expectCode(post(), 'MISSING_AUTH_HEADER', 'auth');
      await expectCode(post('Bearer sbx_at_not_a_real_token'), 'INVALID_TOKEN', 'auth');
      const { accessToken } = h.sandbox.issueTokens(mailbox);
      h.sandbox.advanceClock(hour + 60_000);
      const expired = await expectCode(post(accessToken), 'TOKEN_EXPIRED', 'expired');
      expect(expired.message).not.toContain(accessToken);
      // the expired request counted against the mailbox's second (A23): let that second pass
      trafficClock.skip(1_000);

      const fresh = h.sandbox.issueTokens(mailbox).accessToken;
      // the sandbox's rate window stands still: the 16th request is over the limit however slowly they go
      for (let i = 0; i < 15; i++) await post(fresh);
      const limited = await expectCode(post(fresh), 'RATE_LIMITED', 'rate');
      expect(limited.httpStatus).toBe(429);
      expect(limited.details.retryAfterSeconds).toBe(1);
      trafficClock.skip(1_000);
      h.sandbox.setFaults({ unavailableRate: 1 });
      await expectCode(post(fresh), 'AUTH_UNAVAILABLE', 'unavailable');
    } finally {
      await http.close();
    }
  });

  test('command-level codes and the client typed functions', async () => {
    await h.fresh();
    const api = h.client().client.mailbox(mailbox);
    const [bad] = await api.run([{ command: 'list_threads', args: { folder: 'INBOX', limit: 100_000 } }]);
    expect(bad).toMatchObject({ code: 'INVALID_ARGS', id: '0' });
    await expectCode(api.search({ query: 'x', folder: 'NoSuchFolder' }), 'INVALID_ARGS', 'invalid');
    await expectCode(api.move(['m_none'], 'NoSuchFolder'), 'INVALID_ARGS', 'invalid');
    h.sandbox.setFaults({ errorRate: 1 });
    await expectCode(api.listFolders(), 'INTERNAL', 'internal');
    h.sandbox.setFaults({ unavailableRate: 1 });
    await expectCode(api.listFolders(), 'AUTH_UNAVAILABLE', 'unavailable');
    h.sandbox.setFaults({});
    // a revoked pair: the refresh the client tries is refused too
    h.sandbox.revokeTokens(mailbox);
    await expect(api.listFolders()).rejects.toBeInstanceOf(NeedsNewTokensError);
  });

  test('a command the vendor does not know is kind unsupported (names come from assumptions)', async () => {
    await h.fresh();
    const renamed = parseConfig({
      vendor: h.config.vendor,
      accounts: h.config.accounts,
      stateDir: h.stateDir,
      assumptions: { commands: { search: { name: 'find_v2' } } },
    });
    const api = h.client(undefined, renamed).client.mailbox(mailbox);
    await expectCode(api.search({ query: 'x' }), 'UNKNOWN_COMMAND', 'unsupported');
    expect(h.sandbox.stats(mailbox).commands.find_v2).toBe(1);
  });
});

describe('send and quarantine routes (7.1)', () => {
  test('account codes, spam, release and its refusals', async () => {
    await h.fresh();
    const { client, secrets } = h.client();
    // [code, kind, worth repeating later], read off the meanings in spec 7.1, not off errorKinds
    const codes: Array<[string, ErrorKind, boolean]> = [
      ['INVALID_API_KEY', 'auth', false],
      ['ACCOUNT_BLOCKED', 'account', false],
      ['NO_CREDITS_LEFT', 'account', false],
      ['USER_NOT_FOUND', 'account', false],
      ['MISSING_USER_PRIVILEGES', 'account', false],
      ['EMAIL_CREDITS_NOT_FOUND', 'unavailable', true],
      ['CREDENTIAL_TEMPORARILY_BLOCKED', 'rate', true],
      ['IP_TEMPORARILY_BLOCKED', 'rate', true],
      ['INTERNAL_SERVER_ERROR', 'internal', true],
    ];
    for (const [code, kind, transient] of codes) {
      await fetch(`${h.sandbox.urls.control}/account-state`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, times: 1 }),
      });
      const e = await expectCode(
        client.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'hi', body: '<p>hi</p>' }),
        code,
        kind,
      );
      expect(e.transient).toBe(transient);
    }
    await expectCode(
      client.send({ from: mailbox, subject: 'no recipient', body: 'x' } as unknown as SendRequest),
      'VALIDATION_ERROR',
      'invalid',
    );
    expect(
      (await client.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'hi', body: '<p>hi</p>' })).id,
    ).toBeTruthy();

    const unstorable = await expectCode(client.send(spam(0, 'UNSTORABLE')), 'SPAM_DETECTED', 'spam');
    expect(unstorable.details).toMatchObject({ quarantine_id: null, release_instructions: null, expires_in: null });

    const qid = await quarantined(client, spam(1));
    await expectCode(client.releaseQuarantine(''), 'MISSING_QUARANTINE_ID', 'invalid');
    await expectCode(client.releaseQuarantine('q_nope'), 'QUARANTINE_NOT_FOUND', 'not_found');
    const otherClient = new VendorClient(
      { ...h.config.vendor, apiKey: h.sandbox.otherApiKey },
      h.config.assumptions,
      secrets,
      h.logger,
    );
    h.clients.push(otherClient);
    await expectCode(otherClient.releaseQuarantine(qid), 'QUARANTINE_FORBIDDEN', 'forbidden');
    const released = await client.releaseQuarantine(qid);
    expect(released.id).toBeTruthy();
    await expectCode(client.releaseQuarantine(qid), 'QUARANTINE_NOT_FOUND', 'not_found');
    await expectCode(
      client.releaseQuarantine(await quarantined(client, spam(2, 'CORRUPT_PAYLOAD'))),
      'QUARANTINE_CORRUPT',
      'internal',
    );

    const late = await quarantined(client, spam(3));
    h.sandbox.advanceClock(3 * hour + 60_000);
    await expectCode(client.releaseQuarantine(late), 'QUARANTINE_EXPIRED', 'gone');

    // a fresh 3 h window: 10 releases pass, the 11th is refused
    const ids = [];
    for (let i = 0; i < 11; i++) ids.push(await quarantined(client, spam(10 + i)));
    for (const id of ids.slice(0, 10)) expect((await client.releaseQuarantine(id)).id).toBeTruthy();
    await expectCode(client.releaseQuarantine(ids[10]), 'RELEASE_LIMIT_REACHED', 'limit');
  });

  test('shared domains need no key; sender creation follows A18; a missing key is refused locally', async () => {
    await h.fresh();
    const { client } = h.client();
    const { domains, success } = await client.sharedDomains();
    expect(success).toBe(true);
    expect(domains.length).toBeGreaterThan(0);
    const created = await client.createSender({ domain: domains[0], localPart: 'newbox', name: 'New Box' });
    expect(created).toMatchObject({ success: true, sender: { email: `newbox@${domains[0]}` } });
    await expectCode(client.createSender({ domain: domains[0], localPart: 'newbox' }), 'VALIDATION_ERROR', 'invalid');

    const keyless = h.client(undefined, { ...h.config, vendor: { ...h.config.vendor, apiKey: undefined } }).client;
    await expectCode(
      keyless.send({ to: 'bob@sandbox.test', from: mailbox, subject: 'hi', body: 'x' }),
      'MISSING_AUTH_HEADER',
      'auth',
    );
    expect((await keyless.sharedDomains()).domains).toEqual(domains);
  });
});
