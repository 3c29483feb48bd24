import { describe, expect, test } from 'vitest';
import { OutcomeUnknownError } from '../../src/domain/connector';
import { TransportError } from '../../src/upstream/errors';
import { mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness();

/** The first `count` message ids of INBOX (all of them without a count), paging list_threads as far as needed. */
/** Listed through `api`: a second client would have a gate of its own, blind to this one's requests. */
async function inboxIds(count = Number.POSITIVE_INFINITY, api = h.client().client.mailbox(mailbox)): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await api.listThreads({ folder: 'INBOX', cursor });
    ids.push(...page.threads.flatMap((t) => t.message_uids));
    cursor = page.nextCursor;
  } while (cursor && ids.length < count);
  if (Number.isFinite(count)) expect(ids.length).toBeGreaterThanOrEqual(count);
  return ids.slice(0, count);
}

describe('command batching', () => {
  test('130 ids: 3 get_messages commands in 1 request, matched back by id, not_found honoured', async () => {
    await h.fresh();
    const ids = (await inboxIds(130)).reverse();
    const api = h.client().client.mailbox(mailbox);
    h.sandbox.resetStats();
    const { messages, notFound } = await api.getMessages([...ids, 'm_does_not_exist', ids[0]], []);
    expect(messages.map((m) => m.message_uid)).toEqual(ids);
    expect(notFound).toEqual(['m_does_not_exist']);
    const stats = h.sandbox.stats(mailbox);
    expect(stats.requests).toBe(1);
    expect(stats.commands.get_messages).toBe(3);
  });

  test('1100 ids: 22 commands, so 2 requests issued concurrently', async () => {
    await h.fresh();
    h.sandbox.setLatency(300);
    const api = h.client().client.mailbox(mailbox);
    const ids = Array.from({ length: 1100 }, (_, i) => `m_none_${i}`);
    const { messages, notFound } = await api.getMessages(ids);
    expect(messages).toEqual([]);
    expect(notFound).toEqual(ids);
    expect(h.sandbox.stats(mailbox)).toMatchObject({ requests: 2, maxInFlight: 2, commands: { get_messages: 22 } });
  });

  test('25 commands: 2 requests, results in input order', async () => {
    await h.fresh();
    const api = h.client().client.mailbox(mailbox);
    const commands = Array.from({ length: 25 }, (_, i) => ({
      command: 'list_threads',
      args: { folder: 'INBOX', limit: i + 1 },
    }));
    const results = await api.run(commands);
    expect(h.sandbox.stats(mailbox).requests).toBe(2);
    expect(results.map((r) => (r.data as { threads: unknown[] }).threads.length)).toEqual(
      commands.map((c) => c.args.limit),
    );
  });

  test('reads made at the same moment share requests, each caller gets its own results; writes go alone', async () => {
    await h.fresh();
    const ids = await inboxIds(120);
    const api = h.client().client.mailbox(mailbox);
    h.sandbox.resetStats();
    // what a sync does: the next list page and the messages of the page it just got
    const [page, fetched, folders] = await Promise.all([
      api.listThreads({ folder: 'INBOX', limit: 7 }),
      api.getMessages(ids, []),
      api.listFolders(),
    ]);
    expect(page.threads).toHaveLength(7);
    expect(fetched.messages.map((m) => m.message_uid)).toEqual(ids);
    expect(folders.map((f) => f.name)).toContain('INBOX');
    expect(h.sandbox.stats(mailbox)).toMatchObject({
      requests: 1,
      commands: { list_threads: 1, get_messages: 3, list_folders: 1 },
    });

    // 25 reads from 25 callers: 2 requests of at most 20 commands, every caller its own page
    h.sandbox.resetStats();
    const pages = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api.listThreads({ folder: 'INBOX', limit: i + 1 })),
    );
    expect(pages.map((p) => p.threads.length)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(h.sandbox.stats(mailbox).requests).toBe(2);

    // a write never shares a request with reads
    h.sandbox.resetStats();
    await Promise.all([api.setFlags(ids.slice(0, 2), { is_starred: true }), api.listFolders()]);
    expect(h.sandbox.stats(mailbox).requests).toBe(2);
  });
});

describe('retries', () => {
  test('reads repeat resets, 503s and command-level INTERNAL; each is bounded', async () => {
    await h.fresh();
    const api = h.client().client.mailbox(mailbox);
    const ids = await inboxIds(120);
    h.sandbox.resetStats();
    h.sandbox.setFaults({ resetRate: 0.25, unavailableRate: 0.2, errorRate: 0.2 });
    // sequential, so the sandbox's seeded fault stream is drawn in the same order every run
    for (let i = 0; i < 6; i++) {
      const { messages } = await api.getMessages(ids, []);
      expect(messages).toHaveLength(ids.length);
    }
    const stats = h.sandbox.stats(mailbox);
    expect(stats.requests).toBeGreaterThan(6);
    expect(stats.commands.get_messages).toBeGreaterThan(18);

    h.sandbox.setFaults({ errorRate: 1 });
    h.sandbox.resetStats();
    await expect(api.listFolders()).rejects.toMatchObject({ code: 'INTERNAL', kind: 'internal' });
    expect(h.sandbox.stats(mailbox).commands.list_folders).toBe(4);
  });

  test('a write that may have reached the vendor is never sent twice', async () => {
    await h.fresh();
    const api = h.client().client.mailbox(mailbox);
    const [id] = await inboxIds(1);
    h.sandbox.resetStats();
    h.sandbox.setFaults({ resetRate: 1 });
    const reset = await api.setFlags([id], { is_starred: true }).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(OutcomeUnknownError);
    expect(reset).toMatchObject({ command: 'flag', ids: [id] });
    expect((reset as OutcomeUnknownError).cause).toBeInstanceOf(TransportError);
    expect(h.sandbox.stats(mailbox).requests).toBe(1);

    // a command-level INTERNAL says nothing about whether the command took effect
    h.sandbox.setFaults({ errorRate: 1 });
    h.sandbox.resetStats();
    const err = await api.move([id], 'Archive').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ command: 'move', ids: [id], cause: { code: 'INTERNAL' } });
    expect(h.sandbox.stats(mailbox).commands.move).toBe(1);

    // 503 AUTH_UNAVAILABLE is refused before any effect, so the write is repeated
    h.sandbox.setFaults({ unavailableRate: 0.5 });
    h.sandbox.resetStats();
    for (let i = 0; i < 4; i++) expect((await api.setFlags([id], { is_read: i % 2 === 0 })).done).toEqual([id]);
    expect(h.sandbox.stats(mailbox).commands.flag).toBe(4);
  });
});

test('raw(): attachment bytes streamed with the original content type', async () => {
  await h.fresh();
  const api = h.client().client.mailbox(mailbox);
  const { messages } = await api.getMessages(await inboxIds(Number.POSITIVE_INFINITY, api), ['attachments']);
  const withFiles = messages.flatMap((m) => (m.attachments ?? []).map((a) => ({ uid: m.message_uid, a })));
  const big = withFiles.reduce((x, y) => (y.a.size_bytes > x.a.size_bytes ? y : x));
  expect(big.a.size_bytes).toBeGreaterThan(1_000_000);
  h.sandbox.resetStats();
  const downloads = await Promise.all(
    Array.from({ length: 18 }, async () => {
      const raw = await api.raw(big.uid, big.a.attachment_id);
      let bytes = 0;
      for await (const chunk of raw.stream) bytes += (chunk as Buffer).length;
      return { bytes, raw };
    }),
  );
  for (const d of downloads) {
    expect(d.bytes).toBe(big.a.size_bytes);
    expect(d.raw.length).toBe(big.a.size_bytes);
    expect(d.raw.contentType).toBe(big.a.mime_type);
  }
  const stats = h.sandbox.stats(mailbox);
  expect(stats.rawDownloads).toBe(18);
  // the limiter slot is held until each body has been read, as the vendor counts it
  expect(stats.maxInFlight).toBeLessThanOrEqual(15);
  expect(stats.rateLimited).toBe(0);
  await expect(api.raw(big.uid, 'no-such-attachment')).rejects.toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
});
