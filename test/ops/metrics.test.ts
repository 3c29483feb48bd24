import fs from 'node:fs';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { control, mailbox, useImapSession } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { requireTools } from '../support/tools';
import { scrape } from './prometheus';

/** The injected clock of the readiness record: the tests move it past the staleness limit. */
let clockOffset = 0;
/**
 * The vendor's rate windows and the bridge's gate, Retry-After pauses and backoff: moved on to
 * whatever the bridge waits for, and by the test where it would wait for a vendor second to pass.
 */
const vendorClock = new ManualClock();
/** What the vendor's latency waits on: a request it delays is held until the test moves this. */
const held = new ManualClock();
const s = useImapSession({
  sandbox: { messages: 40, trafficClock: vendorClock.now, latencyClock: held },
  config: { ops: { port: 0, staleAfterSeconds: 60 } },
  bridge: { now: () => Date.now() + clockOffset, vendorClock },
});
beforeAll(() => vendorClock.run());
afterAll(() => vendorClock.stop());
const ops = (route: string) => `http://127.0.0.1:${s.h.bridge.ports.ops}${route}`;

beforeAll(() => requireTools('prometheus-parser'));

async function submit(subject: string): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: s.h.bridge.ports.smtp,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: mailbox, pass: s.h.password },
  });
  try {
    await transport.sendMail({ from: mailbox, to: 'bob@sandbox.test', subject, text: 'hello' });
  } catch {
    // a held submission is answered 550; the metrics below say which outcome each one had
  } finally {
    transport.close();
  }
}

describe('/metrics', () => {
  test('counts vendor requests, IMAP commands, sessions, submissions, quarantine and process figures', async () => {
    await s.client.mailboxOpen('INBOX');
    await s.client.fetchAll('1:5', { envelope: true, flags: true });
    await submit('metrics test');
    await submit('you are a lottery winner');

    const m = await scrape(ops('/metrics'));
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.value('mailbridge_vendor_requests_total', { route: '/v1', outcome: 'success' })).toBeGreaterThan(0);
    expect(m.value('mailbridge_vendor_requests_total', { route: '/v3.0/send', outcome: 'success' })).toBe(1);
    expect(m.value('mailbridge_vendor_requests_total', { route: '/v3.0/send', outcome: 'client_error' })).toBe(1);
    expect(m.value('mailbridge_imap_command_duration_seconds_count', { command: 'SELECT', outcome: 'ok' })).toBe(1);
    expect(m.value('mailbridge_imap_command_duration_seconds_count', { command: 'FETCH', outcome: 'ok' })).toBe(1);
    expect(m.value('mailbridge_sessions', { protocol: 'imap' })).toBe(1);
    expect(m.value('mailbridge_sessions', { protocol: 'smtp' })).toBe(0);
    expect(m.value('mailbridge_smtp_submissions_total', { outcome: 'sent' })).toBe(1);
    expect(m.value('mailbridge_smtp_submissions_total', { outcome: 'held' })).toBe(1);
    expect(m.value('mailbridge_quarantine_records', { status: 'held' })).toBe(1);
    expect(m.value('mailbridge_gate_wait_seconds_count', { gate: mailbox })).toBeGreaterThan(0);
    expect(m.value('mailbridge_gate_queue_depth', { gate: mailbox })).toBe(0);
    expect(m.value('mailbridge_folder_syncs_total', { cause: 'client', outcome: 'ok' })).toBeGreaterThan(0);
    expect(m.value('mailbridge_sync_lag_seconds', { mailbox })).toBeGreaterThanOrEqual(0);
    expect(m.value('mailbridge_token_needs_new', { mailbox })).toBe(0);
    const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    expect(m.value('mailbridge_build_info', { version, node: process.versions.node })).toBe(1);
    const refreshExpiry = m.value('mailbridge_token_expiry_timestamp_seconds', { mailbox, token: 'refresh' }) ?? 0;
    expect(refreshExpiry * 1000).toBeGreaterThan(Date.now() + 14 * 24 * 3600 * 1000);
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(m.families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // low cardinality: no message or quarantine ids in any label
    const text = await (await fetch(ops('/metrics'))).text();
    expect(text).not.toMatch(/q_[A-Za-z0-9]/);
  });

  test('a 429 from the vendor is counted, and the request is retried after Retry-After', async () => {
    // 15 requests of the same mailbox from elsewhere, held by the vendor until the test lets them
    // go, fill its in-flight limit: the bridge's next request is the 16th and gets 429. The
    // bridge's clock stands still meanwhile, so its Retry-After pause ends only once they did.
    s.h.sandbox.setLatency(1);
    const stats = () => s.h.sandbox.stats(mailbox);
    vendorClock.stop();
    // the vendor's sliding second forgets the bridge's earlier requests, so all 15 are admitted
    vendorClock.skip(1_000);
    const before = stats();
    const { accessToken } = s.h.sandbox.issueTokens(mailbox);
    const others = Array.from({ length: 15 }, () =>
      fetch(`${s.h.sandbox.urls.read}/v1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ commands: [{ command: 'list_folders', args: {} }] }),
      }),
    );
    // a folder never opened: its first listing goes to the vendor (STATUS would be answered locally)
    let opening: Promise<unknown> = Promise.resolve();
    try {
      await vi.waitFor(() => expect(stats().requests).toBeGreaterThanOrEqual(before.requests + 15), {
        timeout: 20_000,
        interval: 5,
      });
      opening = s.client.mailboxOpen('Spam');
      await vi.waitFor(() => expect(stats().rateLimited).toBeGreaterThan(before.rateLimited), {
        timeout: 20_000,
        interval: 5,
      });
    } finally {
      s.h.sandbox.setLatency(0);
      await held.advance(1);
      await Promise.all(others);
      vendorClock.run();
    }
    await opening;
    const m = await scrape(ops('/metrics'));
    expect(m.value('mailbridge_vendor_rate_limited_total', { route: '/v1' })).toBeGreaterThanOrEqual(1);
    expect(
      m.value('mailbridge_vendor_requests_total', { route: '/v1', outcome: 'rate_limited' }),
    ).toBeGreaterThanOrEqual(1);
    expect(m.value('mailbridge_vendor_retries_total', { reason: 'rate_limited' })).toBeGreaterThanOrEqual(1);
  });
});

describe('/healthz and /readyz', () => {
  test('healthz answers while the listeners are up', async () => {
    const res = await fetch(ops('/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', listeners: { imap: true, smtp: true } });
  });

  test('readyz fails when the vendor stops answering and a folder keeps failing, and recovers', async () => {
    const ready = await fetch(ops('/readyz'));
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { accounts: unknown[] }).accounts).toEqual([
      { mailbox, ready: true, problems: [] },
    ]);

    await control(s.h.sandbox, 'POST', '/faults', { unavailableRate: 1 });
    await s.h.bridge.pollers[0].tick(); // the open INBOX fails to sync
    clockOffset += 61_000;
    const failing = await fetch(ops('/readyz'));
    expect(failing.status).toBe(503);
    const report = (await failing.json()) as { ready: boolean; accounts: Array<{ problems: string[] }> };
    expect(report.ready).toBe(false);
    const problems = report.accounts[0].problems.join('\n');
    expect(problems).toMatch(/^vendor: no answer since .*AUTH_UNAVAILABLE/m);
    expect(problems).toMatch(/^folder INBOX: syncs failing since/m);

    await control(s.h.sandbox, 'POST', '/faults', {});
    await s.h.bridge.pollers[0].tick();
    clockOffset += 31_000; // past the probe interval: readyz asks the vendor again
    const recovered = await fetch(ops('/readyz'));
    expect(recovered.status).toBe(200);
  });

  test('unknown routes are 404, other methods 405', async () => {
    expect((await fetch(ops('/nope'))).status).toBe(404);
    expect((await fetch(ops('/metrics'), { method: 'POST' })).status).toBe(405);
  });
});
