import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Http, retryAfterSeconds } from '../../src/upstream/http';
import { type GateLane, type LimiterOptions, RateLimiter } from '../../src/upstream/rate-limiter';
import { ManualClock, settle } from '../support/manual-clock';
import { mailbox, useUpstreamHarness } from './harness';

/** Most entries of `times` inside any window of `ms` (each start opens a window). */
function maxInWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

interface Started {
  name: string;
  at: number;
}

/**
 * A limiter on a manual clock and requests that take clock time: each is answered `answerMs`
 * after it starts and over `releaseMs` after it starts (a body still arriving).
 */
function gate(opts: Partial<LimiterOptions>) {
  const clock = new ManualClock();
  const limiter = new RateLimiter(opts, clock);
  const started: Started[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const request = (name: string, lane: GateLane = 'sync', answerMs = 40, releaseMs = answerMs) =>
    limiter.run(lane, (answered) => {
      started.push({ name, at: clock.now() });
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      return new Promise<string>((resolve) => {
        clock.after(answerMs, answered);
        clock.after(releaseMs, () => {
          inFlight--;
          resolve(name);
        });
      });
    });
  return { clock, limiter, started, request, maxInFlight: () => maxInFlight };
}

describe('RateLimiter on an injected clock', () => {
  test('sliding window and in-flight cap: a request counts until a window after its answer', async () => {
    const g = gate({ perWindow: 5, maxInFlight: 3, windowMs: 250 });
    const all = Promise.all(Array.from({ length: 30 }, (_, i) => g.request(`r${i}`)));
    await g.clock.advance(5000);
    expect(await all).toHaveLength(30);
    expect(g.started.map((s) => s.name)).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`));
    expect(g.maxInFlight()).toBe(3);
    // three start at once (in-flight cap); two more when those are answered; the sixth only
    // when the first answer (at 40) has been counted a full window
    expect(g.started.slice(0, 6).map((s) => s.at)).toEqual([0, 0, 0, 40, 40, 290]);
    const starts = g.started.map((s) => s.at);
    expect(maxInWindow(starts, 250)).toBe(5);
    expect(maxInWindow(starts, 290)).toBe(5);
  });

  test('counting ends a window after the answer began, not after the body ended', async () => {
    const g = gate({ perWindow: 5, maxInFlight: 15, windowMs: 250 });
    // answered at 10 ms, body read until 200 ms
    const all = Promise.all(Array.from({ length: 15 }, (_, i) => g.request(`r${i}`, 'sync', 10, 200)));
    await g.clock.advance(2000);
    await all;
    expect([...new Set(g.started.map((s) => s.at))]).toEqual([0, 260, 520]);
  });

  test('no request starts before quietUntil, the window the last run left; then the window admits its full count', async () => {
    const g = gate({ perWindow: 5, maxInFlight: 15, windowMs: 250, quietUntil: 180 });
    const all = Promise.all(Array.from({ length: 10 }, (_, i) => g.request(`r${i}`, i ? 'sync' : 'refresh', 10)));
    await g.clock.advance(2000);
    await all;
    expect([...new Set(g.started.map((s) => s.at))]).toEqual([180, 440]);
  });

  test('an unanswered request counts whatever the time', async () => {
    const g = gate({ perWindow: 2, maxInFlight: 15, windowMs: 100 });
    const slow = g.request('slow', 'sync', 1000);
    const fast = g.request('fast', 'sync', 10);
    const third = g.request('third', 'sync', 10);
    await g.clock.advance(500);
    // "fast" left the window at 110, "slow" is still unanswered: only one place was free again
    expect(g.started.map((s) => [s.name, s.at])).toEqual([
      ['slow', 0],
      ['fast', 0],
      ['third', 110],
    ]);
    await g.clock.advance(1000);
    await Promise.all([slow, fast, third]);
  });

  test('counted() says what the window counts and when its first place frees', async () => {
    const g = gate({ perWindow: 5, maxInFlight: 15, windowMs: 100 });
    expect(g.limiter.counted()).toEqual({ requests: 0, freesAt: Number.POSITIVE_INFINITY });
    const slow = g.request('slow', 'sync', 1000);
    const fast = g.request('fast', 'sync', 10);
    await g.clock.advance(5);
    // both counted, neither answered: no place frees at a known time
    expect(g.limiter.counted()).toEqual({ requests: 2, freesAt: Number.POSITIVE_INFINITY });
    await g.clock.advance(10);
    // "fast" answered at 10: counted until 110
    expect(g.limiter.counted()).toEqual({ requests: 2, freesAt: 110 });
    await g.clock.advance(100);
    expect(g.limiter.counted()).toEqual({ requests: 1, freesAt: Number.POSITIVE_INFINITY });
    await g.clock.advance(1000);
    await Promise.all([slow, fast]);
  });

  test('pause() holds queued and new requests until the pause ends', async () => {
    const g = gate({});
    g.limiter.pause(300);
    const first = g.request('a');
    await g.clock.advance(100);
    const second = g.request('b');
    await g.clock.advance(199);
    expect(g.started).toEqual([]);
    await g.clock.advance(200);
    await Promise.all([first, second]);
    expect(g.started).toEqual([
      { name: 'a', at: 300 },
      { name: 'b', at: 300 },
    ]);
  });

  test('lanes: a queued higher lane always starts first; the token refresh before everything', async () => {
    const g = gate({ perWindow: 1, maxInFlight: 1, windowMs: 100 });
    const busy = g.request('busy', 'prefetch');
    const order: Array<[string, GateLane]> = [
      ['prefetch', 'prefetch'],
      ['sync', 'sync'],
      ['poll', 'poll'],
      ['write', 'write'],
      ['content-1', 'content'],
      ['refresh', 'refresh'],
      ['content-2', 'content'],
      ['sync-2', 'sync'],
    ];
    const rest = order.map(([name, lane]) => g.request(name, lane));
    await settle();
    expect(g.limiter.queued()).toEqual({ refresh: 1, content: 2, write: 1, poll: 1, sync: 2, prefetch: 1 });
    await g.clock.advance(5000);
    await Promise.all([busy, ...rest]);
    expect(g.started.map((s) => s.name)).toEqual([
      'busy',
      'refresh',
      'content-1',
      'content-2',
      'write',
      'poll',
      'sync',
      'sync-2',
      'prefetch',
    ]);
  });

  test('aging: a low lane waits at most agingMs behind a steady stream of higher requests', async () => {
    const g = gate({ perWindow: 15, maxInFlight: 1, windowMs: 1000, agingMs: 2000 });
    let clicks = 0;
    // a new click arrives whenever one starts: the content lane is never empty
    const click = (): Promise<unknown> => {
      const name = `click-${clicks++}`;
      const done = g.request(name, 'content', 50);
      return clicks < 200 ? Promise.all([done, settle().then(click)]) : done;
    };
    const clicking = click();
    await settle();
    const prefetch = g.request('prefetch', 'prefetch', 50);
    await g.clock.advance(30_000);
    await Promise.all([clicking, prefetch]);
    const at = g.started.find((s) => s.name === 'prefetch')!.at;
    const clicksAfter = g.started.filter((s) => s.at > at).length;
    // it waited out its aging bound while clicks kept coming, then went before the queued clicks
    expect(at).toBeGreaterThanOrEqual(2000);
    expect(at).toBeLessThan(2000 + 1000);
    expect(clicksAfter).toBeGreaterThan(0);
  });

  test('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('3', now)).toBe(3);
    expect(retryAfterSeconds(new Date(now + 4500).toUTCString(), now)).toBe(4);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(undefined, now)).toBeNull();
  });
});

describe('RateLimiter against a local HTTP server', () => {
  // the limiter and the server share a manual clock: a request's way to the server and the
  // server's answer take clock time, so what arrives where is the same on any machine
  const clock = new ManualClock();
  let server: http.Server;
  let url: string;
  const arrivals: number[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      arrivals.push(clock.now());
      clock.after(40, () => res.end(JSON.stringify({ n: req.url })));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    clock.run();
  });
  afterAll(() => {
    clock.stop();
    return new Promise<void>((r) => server.close(() => r()));
  });

  test('requests delayed on their way (busy event loop, slow network) still never crowd a server window', async () => {
    const client = new Http(5000);
    await Promise.all([1, 2, 3].map(() => client.json('GET', `${url}/warm`, {})));
    arrivals.length = 0;
    const limiter = new RateLimiter({ perWindow: 5, maxInFlight: 5, windowMs: 250 }, clock);
    // every other request is held up to 120 ms after its slot is granted: far more than any
    // padding of a start-counting limiter would absorb
    const delays = Array.from({ length: 30 }, (_, i) => (i % 2 ? 120 : 0));
    await Promise.all(
      delays.map((delay, i) =>
        limiter.run('sync', async (answered) => {
          await new Promise<void>((r) => clock.after(delay, r));
          return client.json('GET', `${url}/late-${i}`, {}, undefined, answered);
        }),
      ),
    );
    await client.close();
    expect(arrivals).toHaveLength(30);
    expect(maxInWindow(arrivals, 250)).toBeLessThanOrEqual(5);
  });
});

describe('limits against the sandbox vendor', () => {
  // requests spend the vendor's latency on the clock the client and the vendor's windows share
  const clock = new ManualClock();
  const h = useUpstreamHarness({ messages: 20, latencyClock: clock }, clock);

  /** Calls made one event-loop turn apart: reads made in the same turn would share requests. */
  async function separately<T>(n: number, call: () => Promise<T>): Promise<Array<Promise<T>>> {
    const calls: Array<Promise<T>> = [];
    for (let i = 0; i < n; i++) {
      calls.push(call());
      await new Promise((r) => setImmediate(r));
    }
    return calls;
  }

  test('300 concurrent calls never exceed 15 starts per second nor 15 in flight', async () => {
    await h.fresh();
    h.sandbox.setLatency(30);
    // half of them answered 120 ms later: answers as uneven as a real vendor's, and requests still
    // on their way while the clock moves on, which is what a start-counting gate stumbles over
    h.sandbox.setFaults({ slowRate: 0.5, slowMs: 120 });
    const api = h.client().client.mailbox(mailbox);
    await Promise.all(await separately(300, () => api.listFolders()));
    const stats = h.sandbox.stats(mailbox);
    expect(stats.requests).toBe(300);
    expect(stats.maxPerSecond).toBe(15);
    expect(stats.maxInFlight).toBeLessThanOrEqual(15);
    expect(stats.rateLimited).toBe(0);
  });

  test('a 429 pauses the mailbox for Retry-After, then every call succeeds', async () => {
    await h.fresh();
    h.sandbox.setLatency(50);
    // a client whose limiter is deliberately too generous, to provoke the vendor's 429
    const api = h.client({ perWindow: 100, maxInFlight: 100 }).client.mailbox(mailbox);
    const results = await Promise.all(await separately(30, () => api.listFolders()));
    expect(results.every((r) => r.length > 0)).toBe(true);
    const stats = h.sandbox.stats(mailbox);
    expect(stats.rateLimited).toBeGreaterThan(0);
    expect(stats.requests).toBe(30);
    expect(h.logText).toContain('Retry-After');
  });

  test('a click queued behind a busy sync starts first, and lifts the reads it shares a request with', async () => {
    await h.fresh();
    h.sandbox.setLatency(150);
    const api = h.client().client.mailbox(mailbox);
    const [thread] = (await api.listThreads({ folder: 'INBOX', limit: 1 })).threads;
    const id = thread.last_message_uid;
    h.clock.skip(1_000); // an empty window, so the order below is the gate's
    h.sandbox.resetStats();
    const finished: string[] = [];
    const track = (name: string, call: Promise<unknown>) => call.then(() => finished.push(name));
    // 30 separate sync reads: 15 start, 15 wait in the gate
    const syncs = await separately(30, () => api.listFolders('sync'));
    const tracked = syncs.map((c, i) => track(`sync-${i}`, c));
    // in one turn: a click and a sync read that share one request
    tracked.push(track('click', api.getMessages([id], undefined, 'content')));
    tracked.push(track('shared-sync', api.getMessages([id])));
    await Promise.all(tracked);
    // the click's request started before every queued sync read; the read sharing it came along
    const firstQueued = Math.min(...Array.from({ length: 15 }, (_, i) => finished.indexOf(`sync-${15 + i}`)));
    expect(finished.indexOf('click')).toBeLessThan(firstQueued);
    expect(finished.indexOf('shared-sync')).toBeLessThan(firstQueued);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ requests: 31, rateLimited: 0, commands: { get_messages: 2 } });
  });
});
