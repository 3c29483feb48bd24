import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';
let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ messages: 10 });
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

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('more than 15 in flight: the rest get 429 RATE_LIMITED with Retry-After; stats count only admitted', async () => {
  const token = sb.issueTokens(alice).accessToken;
  sb.setLatency(400);
  sb.resetStats();
  try {
    const results = await Promise.all(Array.from({ length: 20 }, () => hit(token)));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(15);
    expect(limited).toHaveLength(5);
    for (const r of limited) {
      expect(r.code).toBe('RATE_LIMITED');
      expect(Number.isInteger(Number(r.retryAfter)) && Number(r.retryAfter) >= 1).toBe(true);
    }
    expect(sb.stats(alice)).toMatchObject({
      requests: 15,
      maxInFlight: 15,
      rateLimited: 5,
      maxPerSecond: 15,
      commands: { list_folders: 15 },
    });
  } finally {
    sb.setLatency(0);
  }
  await pause(1100);
});

test('more than 15 started within a sliding second is 429 even when sequential; other mailboxes are unaffected', async () => {
  const token = sb.issueTokens(alice).accessToken;
  const bobToken = sb.issueTokens(bob).accessToken;
  sb.resetStats();
  for (let i = 0; i < 15; i++) expect((await hit(token)).status).toBe(200);
  const over = await hit(token);
  expect(over.status).toBe(429);
  expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
  expect((await hit(bobToken)).status).toBe(200);
  await pause(Number(over.retryAfter) * 1000);
  expect((await hit(token)).status).toBe(200);
  const stats = sb.stats(alice);
  expect(stats.maxPerSecond).toBe(15);
  expect(stats.maxInFlight).toBe(1);
  expect(stats.rateLimited).toBe(1);
  expect(stats.requests).toBe(16);
  expect(sb.stats().requests).toBe(17); // all mailboxes together
});
