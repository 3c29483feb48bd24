import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { Traffic } from '../../src/sandbox/traffic';
import { ManualClock } from '../support/manual-clock';

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';

/** Spec section 8: 15 requests per second and 15 in flight, per IP and mailbox. */
describe('traffic accounting on a manual clock', () => {
  test('the 16th start within a sliding second is refused until the oldest start is a second old', () => {
    const clock = new ManualClock(5_000);
    const traffic = new Traffic(clock.now);
    for (let i = 0; i < 15; i++) {
      const a = traffic.admit('10.0.0.1', alice);
      expect(a.ok).toBe(true);
      if (a.ok) a.done();
      clock.skip(10);
    }
    // the first start was at 5000, so the window frees at 6000
    expect(traffic.admit('10.0.0.1', alice)).toEqual({ ok: false, retryAfter: 1 });
    clock.skip(999 - 150);
    expect(traffic.admit('10.0.0.1', alice).ok).toBe(false);
    expect(traffic.admit('10.0.0.2', alice).ok).toBe(true); // another IP
    expect(traffic.admit('10.0.0.1', bob).ok).toBe(true); // another mailbox
    clock.skip(1);
    expect(traffic.admit('10.0.0.1', alice).ok).toBe(true);
    // statistics are per mailbox over every IP: the other IP's start shared alice's busiest second
    expect(traffic.stats(alice)).toMatchObject({ requests: 17, rateLimited: 2, maxPerSecond: 16, maxInFlight: 2 });
  });

  test('Retry-After is the whole seconds until a slot frees, at least 1', () => {
    const clock = new ManualClock();
    const traffic = new Traffic(clock.now, 2, 15);
    traffic.admit('ip', alice);
    clock.skip(100);
    traffic.admit('ip', alice);
    expect(traffic.admit('ip', alice)).toEqual({ ok: false, retryAfter: 1 });
    clock.skip(899);
    expect(traffic.admit('ip', alice)).toEqual({ ok: false, retryAfter: 1 });
  });

  test('more than 15 in flight is refused even in a quiet second; a finished request frees its slot', () => {
    const clock = new ManualClock();
    const traffic = new Traffic(clock.now);
    const held = Array.from({ length: 15 }, () => traffic.admit('ip', alice));
    expect(held.every((a) => a.ok)).toBe(true);
    clock.skip(1_000); // the rate window is empty again, the requests are not finished
    expect(traffic.admit('ip', alice)).toEqual({ ok: false, retryAfter: 1 });
    const first = held[0];
    if (first.ok) {
      first.done();
      first.done(); // finishing twice frees one slot only
    }
    expect(traffic.admit('ip', alice).ok).toBe(true);
    expect(traffic.admit('ip', alice).ok).toBe(false);
    expect(traffic.stats(alice)).toMatchObject({ requests: 16, maxInFlight: 15, rateLimited: 2, maxPerSecond: 15 });
    expect(traffic.stats()).toMatchObject({ requests: 16 });
  });
});

describe('the reading interface over HTTP', () => {
  const clock = new ManualClock();
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox({ messages: 10, trafficClock: clock.now });
  });

  afterAll(async () => {
    await sb?.close();
  });

  async function hit(token: string): Promise<{ status: number; retryAfter: string | null; code?: string }> {
    const res = await fetch(`${sb.urls.read}/v1`, {
      method: 'POST',
      headers: { authorization: token },
      body: JSON.stringify({ commands: [{ command: 'list_folders' }] }),
    });
    const body = (await res.json()) as { code?: string };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.code };
  }

  test('the 16th request in a second is 429 RATE_LIMITED with Retry-After; other mailboxes go on', async () => {
    const token = sb.issueTokens(alice).accessToken;
    const bobToken = sb.issueTokens(bob).accessToken;
    sb.resetStats();
    for (let i = 0; i < 15; i++) expect((await hit(token)).status).toBe(200);
    expect(await hit(token)).toEqual({ status: 429, retryAfter: '1', code: 'RATE_LIMITED' });
    expect((await hit(bobToken)).status).toBe(200);
    clock.skip(1_000);
    expect((await hit(token)).status).toBe(200);
    expect(sb.stats(alice)).toMatchObject({
      requests: 16,
      maxPerSecond: 15,
      maxInFlight: 1, // each answer ended its admission
      rateLimited: 1,
      commands: { list_folders: 16 },
    });
    expect(sb.stats().requests).toBe(17); // all mailboxes together
  });
});
