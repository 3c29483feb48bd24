import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import type { VendorMessage } from '../../src/upstream/types';
import { dump } from '../sandbox/http-client';
import { ManualClock } from '../support/manual-clock';
import { type Fixture, fill, hostOf, loadFixtures, shapeDifferences, type Values } from './fixtures';

/** The sandbox against the hand-written fixtures: a drift of the emulated vendor from the spec shows here. */

const alice = 'alice@sandbox.test';
const hour = 3_600_000;
const fixtures = loadFixtures();
const trafficClock = new ManualClock();
let sb: Sandbox;
let senders = 0;

beforeAll(async () => {
  // 400 messages: INBOX holds more than one page of 100 threads
  sb = await startSandbox({ messages: 400, trafficClock: trafficClock.now });
});

afterAll(async () => {
  await sb?.close();
});

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

async function send(f: Fixture, values: Values): Promise<Sent> {
  const req = fill(f.request, values);
  const query = req.query ? `?${new URLSearchParams(req.query)}` : '';
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const res = await fetch(`${sb.urls[hostOf(f)]}${req.path}${query}`, {
    method: req.method,
    headers: { ...req.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const request = (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Fixture => ({
  file: '(setup)',
  about: '',
  source: [],
  request: { method, path, headers, body },
  response: { status: 200 },
});

async function commandData(token: string, command: string, args: Record<string, unknown>) {
  const r = await send(request('POST', '/v1', { authorization: token }, { commands: [{ command, args }] }), {});
  return (JSON.parse(r.text) as { results: Array<{ data: Record<string, unknown> }> }).results[0].data;
}

async function spam(key: string, subject: string): Promise<string> {
  const body = { to: 'bob@sandbox.test', from: alice, subject, body: '<p>x</p>' };
  const r = await send(request('POST', '/v3.0/send', { authorization: `Bearer ${key}` }, body), {});
  return (JSON.parse(r.text) as { quarantine_id: string }).quarantine_id;
}

/** Values of the sandbox's own state for the placeholders, then what the fixture's setup asks for. */
async function valuesFor(f: Fixture): Promise<Values> {
  const tokens = sb.issueTokens(alice);
  const inbox = await dump(sb, alice, 'INBOX', 'attachments');
  const withFile = inbox.find((m) => (m.attachments ?? []).length > 0) as VendorMessage;
  const file = withFile.attachments?.[0];
  const labelled = [...inbox, ...(await dump(sb, alice))].find((m) => m.labels.length > 0) as VendorMessage;
  const domains = JSON.parse((await send(request('GET', '/v3.0/free/domains', {}), {})).text) as { domains: string[] };
  const values: Values = {
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    api_key: sb.apiKey,
    unknown_api_key: 'not-a-key-of-this-vendor',
    message_uid: withFile.message_uid,
    attachment_id: file?.attachment_id ?? '',
    mime_type: file?.mime_type ?? '',
    missing_id: 'm_no_such_message',
    label: labelled.labels[0],
    search_text: withFile.subject.split(/\s+/).find((w) => /^\p{L}{4,}$/u.test(w)) ?? withFile.subject,
    spam_subject: 'You are a lottery winner',
    unstorable_spam_subject: 'UNSTORABLE lottery winner',
    shared_domain: domains.domains[0],
    new_local_part: `contract${++senders}`,
  };
  switch (f.setup) {
    case undefined:
      break;
    case 'last-page-cursor': {
      const first = await commandData(values.access_token, 'list_threads', { folder: 'Archive', limit: 1 });
      values.cursor = String(first.next_cursor);
      break;
    }
    case 'invalid-access-token':
      values.access_token = 'sbx_at_never_issued';
      break;
    case 'expired-access-token':
      sb.advanceClock(hour + 60_000);
      break;
    case 'auth-unavailable':
      sb.setFaults({ unavailableRate: 1 });
      break;
    case 'rate-limit-used-up':
      for (let i = 0; i < 15; i++) await commandData(values.access_token, 'list_folders', {});
      break;
    case 'quarantined':
      values.quarantine_id = await spam(sb.apiKey, 'lottery winner, held');
      break;
    case 'quarantined-by-other-account':
      values.quarantine_id = await spam(sb.otherApiKey, 'lottery winner, not yours');
      break;
    case 'quarantine-expired':
      values.quarantine_id = await spam(sb.apiKey, 'lottery winner, late');
      sb.advanceClock(3 * hour + 60_000);
      break;
    default:
      throw new Error(`${f.file}: unknown setup ${f.setup}`);
  }
  return values;
}

describe('the sandbox answers every fixture request as the fixture shows', () => {
  test.each(fixtures.map((f) => [f.file, f] as const))('%s', async (_file, f) => {
    trafficClock.advance(1_000); // a fresh rate window for every fixture
    try {
      const values = await valuesFor(f);
      const res = await send(f, values);
      expect(res.status, res.text).toBe(f.response.status);
      for (const [name, value] of Object.entries(fill(f.response.headers ?? {}, values)))
        expect(res.headers.get(name), name).toBe(value);
      if (f.response.text !== undefined) expect(res.text.length).toBeGreaterThan(0);
      else expect(shapeDifferences(f, fill(f.response.body, values), JSON.parse(res.text))).toEqual([]);
    } finally {
      sb.setFaults({});
    }
  });
});
