import { describe, expect, test } from 'vitest';
import { TransportError } from '../../src/upstream/errors';
import { mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness({ messages: 5 });

/**
 * Polls `done` on the real clock (bounded): the vendor client's timeout is undici's own timer on
 * a real socket, which no injected clock reaches.
 */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
}

describe('a stalled vendor', () => {
  test('requests it sits on keep their places in flight until they end: never a 16th, never a 429', async () => {
    await h.fresh();
    const config = { ...h.config, vendor: { ...h.config.vendor, timeoutMs: 1_000 } };
    const api = h.client({}, config).client.mailbox(mailbox);
    h.sandbox.setLatency(5_000);
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      calls.push(api.listFolders('content').catch((e: unknown) => e));
      await new Promise((r) => setImmediate(r)); // one request each: reads of one turn share one
    }
    // the 15 stall; the other 5 wait for a place, however long: a 16th sent while the 15 are held
    // would show in maxInFlight below, so no pause here looks for one
    await until(() => h.sandbox.received() >= 15);
    expect(h.sandbox.received()).toBe(15);
    const outcomes = await Promise.all(calls);
    // each timed out once and was not repeated: the vendor got 20 requests in all
    expect(outcomes.every((o) => o instanceof TransportError && o.timedOut)).toBe(true);
    expect(h.sandbox.received()).toBe(20);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ rateLimited: 0 });
    expect(h.sandbox.stats(mailbox).maxInFlight).toBeLessThanOrEqual(15);
  });
});
