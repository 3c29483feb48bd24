import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Http, retryAfterSeconds } from '../../src/upstream/http';
import { RateLimiter } from '../../src/upstream/rate-limiter';
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

describe('RateLimiter against a local HTTP server', () => {
  let server: http.Server;
  let url: string;
  const arrivals: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      arrivals.push(performance.now());
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      // /slow-body answers at once but takes 200 ms to send its body (a large answer on its way)
      if (req.url?.startsWith('/slow-body')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
      }
      setTimeout(
        () => {
          inFlight--;
          res.end(JSON.stringify({ n: req.url }));
        },
        req.url?.startsWith('/slow-body') ? 200 : 40,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('sliding window and in-flight cap hold as the server sees them; starts are first come first served', async () => {
    const client = new Http(5000);
    // warm connections first: a cold first request arrives late and would compress the window
    // on the server's side, which is no limiter property (the vendor margin covers only jitter)
    await Promise.all([1, 2, 3].map(() => client.json('GET', `${url}/warm`, {})));
    await new Promise((r) => setTimeout(r, 250));
    arrivals.length = 0;
    maxInFlight = 0;
    const limiter = new RateLimiter({ perWindow: 5, maxInFlight: 3, windowMs: 250 });
    const order: number[] = [];
    const starts: number[] = [];
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        limiter.run(() => {
          order.push(i);
          starts.push(performance.now());
          return client.json<{ n: string }>('GET', `${url}/${i}`, {});
        }),
      ),
    );
    await client.close();
    expect(answers.map((a) => a.body.n)).toEqual(Array.from({ length: 30 }, (_, i) => `/${i}`));
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(maxInFlight).toBe(3);
    // a request counts until a window after its answer, so however late one arrives, the
    // server never sees more than 5 inside any window
    expect(maxInWindow(starts, 240)).toBe(5);
    expect(maxInWindow(arrivals, 250)).toBeLessThanOrEqual(5);
    // 30 starts at 5 per 250 ms need at least 5 full windows
    expect(performance.now() - started).toBeGreaterThanOrEqual(5 * 250);
  });

  test('requests delayed on their way (busy event loop, slow network) still never crowd a server window', async () => {
    const client = new Http(5000);
    await Promise.all([1, 2, 3].map(() => client.json('GET', `${url}/warm`, {})));
    arrivals.length = 0;
    const limiter = new RateLimiter({ perWindow: 5, maxInFlight: 5, windowMs: 250 });
    // every other request is held up to 120 ms after its slot is granted: far more than any
    // padding of a start-counting limiter would absorb
    const delays = Array.from({ length: 30 }, (_, i) => (i % 2 ? 120 : 0));
    await Promise.all(
      delays.map((delay, i) =>
        limiter.run(async () => {
          await new Promise((r) => setTimeout(r, delay));
          return client.json('GET', `${url}/late-${i}`, {});
        }),
      ),
    );
    await client.close();
    expect(arrivals).toHaveLength(30);
    expect(maxInWindow(arrivals, 250)).toBeLessThanOrEqual(5);
  });

  test('a request counts from its start until a window after its answer began, not after its body ended', async () => {
    const client = new Http(5000);
    await Promise.all([1, 2, 3].map(() => client.json('GET', `${url}/warm`, {})));
    arrivals.length = 0;
    const limiter = new RateLimiter({ perWindow: 5, maxInFlight: 15, windowMs: 250 });
    const starts: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        limiter.run((answered) => {
          starts.push(performance.now() - started);
          return client.json('GET', `${url}/slow-body-${i}`, {}, undefined, answered);
        }),
      ),
    );
    await client.close();
    expect(maxInWindow(arrivals, 250)).toBeLessThanOrEqual(5);
    // counted until 250 ms after each body ended, the third five could not start before 2 x 450 ms
    expect(Math.max(...starts)).toBeGreaterThanOrEqual(2 * 250);
    expect(Math.max(...starts)).toBeLessThan(2 * 450);
  });

  test('pause() holds queued and new requests', async () => {
    const limiter = new RateLimiter();
    const t0 = performance.now();
    limiter.pause(300);
    const at = await Promise.all([
      limiter.run(async () => performance.now()),
      limiter.run(async () => performance.now()),
    ]);
    for (const t of at) expect(t - t0).toBeGreaterThanOrEqual(295);
  });

  test('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('3', now)).toBe(3);
    expect(retryAfterSeconds(new Date(now + 4500).toUTCString(), now)).toBe(4);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(undefined, now)).toBeNull();
  });
});

describe('limits against the sandbox vendor', () => {
  const h = useUpstreamHarness({ messages: 20 });

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
    const api = h.client().client.mailbox(mailbox);
    const started = Date.now();
    await Promise.all(await separately(300, () => api.listFolders()));
    const stats = h.sandbox.stats(mailbox);
    expect(stats.requests).toBe(300);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(15);
    expect(stats.maxInFlight).toBeLessThanOrEqual(15);
    expect(stats.rateLimited).toBe(0);
    // and it does not crawl: each request holds its slot for its latency plus a second, so
    // 300 requests at 30 ms need about 21 s
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  test('a 429 pauses the mailbox for Retry-After, then every call succeeds', async () => {
    await h.fresh();
    h.sandbox.setLatency(50);
    // a client whose limiter is deliberately too generous, to provoke the vendor's 429
    const api = h.client({ perWindow: 100, maxInFlight: 100 }).client.mailbox(mailbox);
    const started = Date.now();
    const results = await Promise.all(await separately(30, () => api.listFolders()));
    expect(results.every((r) => r.length > 0)).toBe(true);
    const stats = h.sandbox.stats(mailbox);
    expect(stats.rateLimited).toBeGreaterThan(0);
    expect(stats.requests).toBe(30);
    // the sandbox answers Retry-After: 1 at least
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(h.logText).toContain('Retry-After');
  });
});
