import { expect, test } from 'vitest';
import { mailbox, useUpstreamHarness } from './harness';
import { ManualClock } from '../support/manual-clock';

// the vendor's latency is spent on the clock the client's gate and the vendor's windows share
const clock = new ManualClock();
const h = useUpstreamHarness({ messages: 150, latencyClock: clock }, clock);

test('writes of many callers at once share requests; each caller gets its own outcome', async () => {
  await h.fresh();
  const api = h.client().client.mailbox(mailbox);
  const threads = await api.listThreads({ folder: 'INBOX', limit: 100 });
  const ids = threads.threads.flatMap((t) => t.message_uids).slice(0, 30);
  expect(ids).toHaveLength(30);
  h.sandbox.resetStats();

  const results = await Promise.all(ids.map((id) => api.setFlags([id], { is_starred: true })));
  expect(results.map((r) => r.done)).toEqual(ids.map((id) => [id]));
  const stats = h.sandbox.stats(mailbox);
  expect(stats.commands.flag).toBe(30);
  // a request takes the writes issued until the gate grants it, 20 commands at most
  expect(stats.requests).toBe(2);
  const { messages } = await api.readBack(ids);
  expect(messages.every((m) => m.is_starred)).toBe(true);
});

test.each([5, 20])(
  '%i clients each waiting for its write before the next: requests gathered while the window is crowded stay within the limits',
  async (clients) => {
    await h.fresh();
    h.sandbox.setLatency(50);
    const api = h.client().client.mailbox(mailbox);
    const threads = await api.listThreads({ folder: 'INBOX', limit: 100 });
    const ids = threads.threads.flatMap((t) => t.message_uids);
    h.sandbox.resetStats();

    // each client: a pause of 0-39 ms (its other commands), then a write it waits for, 12 times
    const writes = 12;
    const client = async (c: number) => {
      for (let i = 0; i < writes; i++) {
        await new Promise<void>((r) => clock.after((c * 7 + i * 13) % 40, r));
        const id = ids[(c * writes + i) % ids.length];
        const result = await api.setFlags([id], { is_starred: i % 2 === 0 });
        expect(result.done).toEqual([id]);
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
    const stats = h.sandbox.stats(mailbox);
    expect(stats.commands.flag).toBe(clients * writes);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(15);
    expect(stats.maxInFlight).toBeLessThanOrEqual(15);
    expect(stats.rateLimited).toBe(0);
    // the writes share requests: more than one caller's write a request on average
    expect(stats.requests).toBeLessThan(clients * writes * 0.8);
  },
);
