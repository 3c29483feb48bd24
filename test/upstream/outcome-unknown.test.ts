import { describe, expect, test } from 'vitest';
import { OutcomeUnknownError } from '../../src/domain/connector';
import { TransportError } from '../../src/upstream/errors';
import { mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness({ messages: 150 });

async function inboxIds(count: number): Promise<string[]> {
  const { threads } = await h.client().client.mailbox(mailbox).listThreads({ folder: 'INBOX', limit: 100 });
  const ids = threads.flatMap((t) => t.message_uids).slice(0, count);
  expect(ids).toHaveLength(count);
  return ids;
}

async function outcomeUnknown(call: Promise<unknown>): Promise<OutcomeUnknownError> {
  const err = await call.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OutcomeUnknownError);
  return err as OutcomeUnknownError;
}

describe('a write whose answer was lost', () => {
  test('applied, then the connection dropped: typed with its command and ids, sent once, read back', async () => {
    await h.fresh();
    const [id] = await inboxIds(1);
    const api = h.client().client.mailbox(mailbox);
    const before = (await api.readBack([id])).messages[0];
    expect(before.is_starred).toBe(false);
    h.sandbox.resetStats();
    h.sandbox.setFaults({ lostWriteAnswerRate: 1 });
    const err = await outcomeUnknown(api.setFlags([id], { is_starred: true }));
    expect(err).toMatchObject({ command: 'flag', ids: [id], settled: { done: [], notFound: [] } });
    expect(err.cause).toBeInstanceOf(TransportError);
    expect(h.sandbox.stats(mailbox).commands.flag).toBe(1);
    // reads are answered as usual under this fault: the read-back shows the write happened
    const { messages, notFound } = await api.readBack([id]);
    expect(notFound).toEqual([]);
    expect(messages[0]).toMatchObject({ message_uid: id, is_starred: true });
    // metadata only (A14): no body travels for a read-back
    expect(messages[0].body).toBeUndefined();
    expect(h.sandbox.stats(mailbox).commands).toEqual({ flag: 1, get_messages: 1 });
  });

  test('a move in two requests, one answer lost: its ids are unknown, the other request settled', async () => {
    await h.fresh();
    const ids = await inboxIds(60);
    const api = h.client().client.mailbox(mailbox);
    // 1,060 ids are 22 groups of 50: 20 in the first request (unknown ids only), 2 in the second
    const padding = Array.from({ length: 1000 }, (_, i) => `m_none_${i}`);
    // the sandbox's fault draws are seeded: after this file's earlier draws, one of the two
    // answers is lost and the other arrives (which request draws first depends on arrival)
    h.sandbox.setFaults({ lostWriteAnswerRate: 0.5 });
    h.sandbox.resetStats();
    const err = await outcomeUnknown(api.move([...padding, ...ids], 'Archive'));
    expect(h.sandbox.stats(mailbox).commands.move).toBe(22);
    if (err.ids.length === padding.length) {
      expect(err.ids).toEqual(padding);
      expect(err.settled).toEqual({ done: ids, notFound: [] });
    } else {
      expect(err.ids).toEqual(ids);
      expect(err.settled).toEqual({ done: [], notFound: padding });
    }
  });

  test('a timeout after sending is unknown too; answers that prove nothing happened are repeated', async () => {
    await h.fresh();
    const [id] = await inboxIds(1);
    const config = { ...h.config, vendor: { ...h.config.vendor, timeoutMs: 300 } };
    const api = h.client(undefined, config).client.mailbox(mailbox);
    h.sandbox.setLatency(1000);
    h.sandbox.resetStats();
    const err = await outcomeUnknown(api.label([id], { add: ['late'] }));
    expect(err).toMatchObject({ command: 'label', ids: [id] });
    expect(h.sandbox.stats(mailbox).requests).toBe(1);

    h.sandbox.setLatency(0);
    h.sandbox.setFaults({ unavailableRate: 0.5 });
    h.sandbox.resetStats();
    for (let i = 0; i < 4; i++) expect((await api.setFlags([id], { is_read: i % 2 === 0 })).done).toEqual([id]);
    expect(h.sandbox.stats(mailbox).commands.flag).toBe(4);
  });
});
