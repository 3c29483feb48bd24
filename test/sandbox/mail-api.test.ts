import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { call, control, dump } from './http-client';

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';
let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ messages: 20, seed: 3 });
});

afterAll(async () => {
  await sb?.close();
});

const send = (body: Record<string, unknown>, key: string | null = `Bearer ${sb.apiKey}`) =>
  call(`${sb.urls.mail}/v3.0/send`, { headers: key === null ? {} : { authorization: key }, body });
const release = (id: unknown, key = sb.apiKey) =>
  call(`${sb.urls.mail}/v3.0/quarantine/release`, {
    headers: { authorization: `Bearer ${key}` },
    body: id === undefined ? {} : { quarantine_id: id },
  });
const mail = (subject: string, extra: Record<string, unknown> = {}) => ({
  to: bob,
  from: alice,
  senderName: 'Alice A.',
  subject,
  body: `<p>${subject}</p>`,
  ...extra,
});

describe('send (spec 4.4, A16, A17)', () => {
  test('a send is delivered to the sandbox recipient, copied to Sent and recorded in the outbox', async () => {
    const attachment = Buffer.from('Größe: 42 bytes of data, deterministic!');
    const r = await send(
      mail('Quartalszahlen 📈', {
        text: 'plain version',
        replyTo: 'replies@sandbox.test',
        headers: { 'Message-ID': '<q3-numbers@mailbridge.test>' },
        attachments: [{ filename: 'zahlen.csv', content: attachment.toString('base64'), contentType: 'text/csv' }],
      }),
      sb.apiKey, // the bare key form of the send sample
    );
    expect(r.status).toBe(200);
    expect(typeof r.body.id).toBe('string');
    const got = (await dump(sb, bob, 'INBOX', 'body,attachments,full_headers')).find(
      (m) => m.message_id === '<q3-numbers@mailbridge.test>',
    );
    expect(got).toMatchObject({
      subject: 'Quartalszahlen 📈',
      from_email: alice,
      from_name: 'Alice A.',
      is_read: false,
    });
    expect(got?.body?.text).toBe('plain version');
    expect((got?.full_headers?.headers_json as Record<string, string> | undefined)?.['Reply-To']).toBe(
      'replies@sandbox.test',
    );
    const file = got?.attachments?.[0];
    expect(file).toMatchObject({
      file_name: 'zahlen.csv',
      mime_type: 'text/csv',
      size_bytes: attachment.length,
      inline: false,
    });
    const bobToken = sb.issueTokens(bob).accessToken;
    const raw = await fetch(
      `${sb.urls.read}/v1/raw?message_id=${got?.message_uid}&attachment_id=${file?.attachment_id}`,
      { headers: { authorization: bobToken } },
    );
    expect(Buffer.from(await raw.arrayBuffer()).equals(attachment)).toBe(true);
    const sent = (await dump(sb, alice, 'Sent')).find((m) => m.message_id === '<q3-numbers@mailbridge.test>');
    expect(sent?.is_read).toBe(true);
    const { outbox } = (await control<{ outbox: Array<Record<string, unknown>> }>(sb, '/outbox')).body;
    expect(outbox.find((o) => o.id === r.body.id)).toMatchObject({
      from: alice,
      to: [bob],
      delivered_to: [bob],
      subject: 'Quartalszahlen 📈',
    });
  });

  test('auth and validation errors use {error, code}', async () => {
    expect((await send(mail('x'), null)).body).toMatchObject({ code: 'MISSING_AUTH_HEADER' });
    const wrong = await send(mail('x'), 'Bearer nope');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'INVALID_API_KEY', error: expect.any(String) });
    for (const bad of [
      { ...mail('x'), to: 'not-an-address' },
      { ...mail('x'), body: undefined },
      { ...mail('x'), attachments: 'nope' },
    ]) {
      const r = await send(bad);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
    }
    expect(
      (await call(`${sb.urls.mail}/v3.0/send`, { headers: { authorization: sb.apiKey }, body: '{oops' })).status,
    ).toBe(400);
  });

  test('every account-level code can be forced through the control API', async () => {
    const expected: Record<string, number> = {
      INVALID_API_KEY: 401,
      ACCOUNT_BLOCKED: 401,
      NO_CREDITS_LEFT: 401,
      USER_NOT_FOUND: 401,
      MISSING_USER_PRIVILEGES: 401,
      EMAIL_CREDITS_NOT_FOUND: 401,
      CREDENTIAL_TEMPORARILY_BLOCKED: 429,
      IP_TEMPORARILY_BLOCKED: 429,
      INTERNAL_SERVER_ERROR: 500,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect((await control(sb, '/account-state', { code, times: 1 })).status).toBe(200);
      const r = await send(mail('forced'));
      expect([r.status, r.body.code]).toEqual([status, code]);
      expect((await send(mail('after'))).status).toBe(200); // times: 1 wore off
    }
    await control(sb, '/account-state', { code: 'ACCOUNT_BLOCKED' });
    expect((await release('q_any')).body.code).toBe('ACCOUNT_BLOCKED');
    await control(sb, '/account-state', { code: null });
    expect((await control(sb, '/account-state', { code: 'MADE_UP' })).status).toBe(400);
  });
});

describe('spam filter and quarantine (spec 3, 4.5, 7.1)', () => {
  test('flagged send is held; release sanitizes and delivers once; a second release is 404', async () => {
    const r = await send(
      mail('Hello lottery winner', { body: '<p onclick="steal()">claim <script>alert(1)</script>now</p>' }),
    );
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      code: 'SPAM_DETECTED',
      detectionId: expect.any(String),
      quarantine_id: expect.any(String),
      release_instructions: expect.any(String),
      expires_in: '3 hours',
    });
    const id = r.body.quarantine_id as string;
    const before = await dump(sb, bob, 'INBOX');
    expect(before.some((m) => m.subject === 'Hello lottery winner')).toBe(false);
    const other = await release(id, sb.otherApiKey);
    expect([other.status, other.body.code]).toEqual([403, 'QUARANTINE_FORBIDDEN']);
    const ok = await release(id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, id: expect.any(String) });
    const delivered = (await dump(sb, bob, 'INBOX', 'body')).find((m) => m.subject === 'Hello lottery winner');
    expect(delivered?.body?.html).not.toMatch(/script|onclick/);
    expect(delivered?.body?.html).toContain('claim');
    const again = await release(id);
    expect([again.status, again.body.code]).toEqual([404, 'QUARANTINE_NOT_FOUND']);
    expect((await release('q_unknown')).status).toBe(404);
    const missing = await release(undefined);
    expect([missing.status, missing.body.code]).toEqual([400, 'MISSING_QUARANTINE_ID']);
    const { records } = (await control<{ records: Array<Record<string, unknown>> }>(sb, '/quarantine')).body;
    expect(records.find((q) => q.quarantine_id === id)?.state).toBe('released');
  });

  test('unstorable payload: quarantine_id, release_instructions and expires_in are null', async () => {
    const r = await send(mail('UNSTORABLE viagra offer'));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      code: 'SPAM_DETECTED',
      quarantine_id: null,
      release_instructions: null,
      expires_in: null,
    });
    expect(typeof r.body.detectionId).toBe('string');
  });

  test('corrupt payload is 500 QUARANTINE_CORRUPT on release', async () => {
    const r = await send(mail('viagra', { body: 'CORRUPT_PAYLOAD' }));
    expect((await release(r.body.quarantine_id)).body.code).toBe('QUARANTINE_CORRUPT');
  });

  test('records expire after 3 hours on the sandbox clock (410)', async () => {
    const r = await send(mail('viagra deal'));
    sb.advanceClock(3 * 3_600_000);
    const late = await release(r.body.quarantine_id);
    expect([late.status, late.body.code]).toEqual([410, 'QUARANTINE_EXPIRED']);
  });

  test('more than 10 releases in 3 hours is 403 RELEASE_LIMIT_REACHED', async () => {
    sb.advanceClock(3 * 3_600_000); // a fresh window
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await send(mail(`viagra ${i}`))).body.quarantine_id as string);
    for (const id of ids.slice(0, 10)) expect((await release(id)).status).toBe(200);
    const eleventh = await release(ids[10]);
    expect([eleventh.status, eleventh.body.code]).toEqual([403, 'RELEASE_LIMIT_REACHED']);
    sb.advanceClock(3 * 3_600_000 - 1);
    expect((await release(ids[10])).body.code).toBe('QUARANTINE_EXPIRED');
  });
});

describe('management host (spec 4.6, 4.7, A18)', () => {
  test('shared domains need no key; the list can rotate', async () => {
    const r = await call(`${sb.urls.graph}/v3.0/free/domains`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      domains: expect.arrayContaining(['sandbox.test']),
      responseTime: expect.any(String),
    });
    await control(sb, '/domains', { domains: ['sandbox.test', 'rotated.test'] });
    expect((await call(`${sb.urls.graph}/v3.0/free/domains`)).body.domains).toEqual(['sandbox.test', 'rotated.test']);
  });

  test('creating a sender on a shared domain creates a mailbox that can receive and read', async () => {
    const create = (body: Record<string, unknown>, key = sb.apiKey) =>
      call(`${sb.urls.graph}/v3.0/senders`, { headers: { authorization: `Bearer ${key}` }, body });
    expect((await call(`${sb.urls.graph}/v3.0/senders`, { body: { domain: 'rotated.test' } })).body.code).toBe(
      'MISSING_AUTH_HEADER',
    );
    expect((await create({ domain: 'unverified.example' })).body.code).toBe('VALIDATION_ERROR');
    const r = await create({ domain: 'rotated.test', local_part: 'carol', name: 'Carol' });
    expect(r.body).toMatchObject({ success: true, sender: { email: 'carol@rotated.test', domain: 'rotated.test' } });
    expect((await create({ domain: 'rotated.test', local_part: 'carol' })).status).toBe(400);
    expect((await send({ ...mail('Welcome Carol'), to: 'carol@rotated.test' })).status).toBe(200);
    const carol = sb.issueTokens('carol@rotated.test');
    const list = await fetch(`${sb.urls.read}/v1`, {
      method: 'POST',
      headers: { authorization: carol.accessToken },
      body: JSON.stringify({ commands: [{ command: 'list_threads', args: { folder: 'INBOX' } }] }),
    });
    const data = (await list.json()) as { results: Array<{ data: { threads: Array<{ subject: string }> } }> };
    expect(data.results[0].data.threads.map((t) => t.subject)).toEqual(['Welcome Carol']);
  });

  test('mail and graph faults: 503, 500 and latency', async () => {
    try {
      sb.setFaults({ unavailableRate: 1 });
      expect((await send(mail('x'))).status).toBe(503);
      expect((await call(`${sb.urls.graph}/v3.0/free/domains`)).status).toBe(503);
      sb.setFaults({ errorRate: 1 });
      expect((await send(mail('x'))).body.code).toBe('INTERNAL_SERVER_ERROR');
    } finally {
      sb.setFaults({});
    }
  });
});
