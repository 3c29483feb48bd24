import { expect, test } from 'vitest';
import { mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness({ messages: 150 });

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
