import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox';
import type { VendorMessage, VendorThread } from '../../src/upstream/types';
import { call, clockedSandbox, heldFor, commands, control, dump, one } from './http-client';

const alice = 'alice@sandbox.test';
const fixedNow = () => Date.UTC(2026, 5, 15, 12);
let a: Sandbox;
let b: Sandbox;

beforeAll(async () => {
  [a, b] = await Promise.all([
    clockedSandbox({ messages: 1500, seed: 42, now: fixedNow }),
    clockedSandbox({ messages: 1500, seed: 42, now: fixedNow }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

async function rawBytes(sb: Sandbox, m: VendorMessage, attachmentId: string): Promise<Buffer> {
  const token = sb.issueTokens(alice).accessToken;
  const res = await fetch(`${sb.urls.read}/v1/raw?message_id=${m.message_uid}&attachment_id=${attachmentId}`, {
    headers: { authorization: token },
  });
  return Buffer.from(await res.arrayBuffer());
}

describe('corpus', () => {
  test('same seed gives identical data, ids included; another seed differs', async () => {
    const [x, y] = await Promise.all([
      dump(a, alice, undefined, 'body,attachments,headers,full_headers'),
      dump(b, alice, undefined, 'body,attachments,headers,full_headers'),
    ]);
    expect(x).toHaveLength(1500);
    expect(JSON.stringify(x)).toBe(JSON.stringify(y));
    const c = await clockedSandbox({ messages: 50, seed: 43, now: fixedNow });
    try {
      const z = await dump(c, alice);
      expect(z[0].message_uid).not.toBe(x[0].message_uid);
    } finally {
      await c.close();
    }
  });

  test('attachment bytes are deterministic pseudo-random and match size_bytes', async () => {
    const all = await dump(a, alice);
    const files = all.flatMap((m) => (m.attachments ?? []).map((f) => ({ m, f })));
    const sizes = files.map(({ f }) => f.size_bytes);
    expect(Math.min(...sizes)).toBe(0);
    expect(Math.max(...sizes)).toBeGreaterThan(3_000_000);
    const sample = files.find(({ f }) => f.size_bytes > 100_000 && f.size_bytes < 1_000_000)!;
    const [p, q] = await Promise.all([
      rawBytes(a, sample.m, sample.f.attachment_id),
      rawBytes(b, sample.m, sample.f.attachment_id),
    ]);
    expect(p.length).toBe(sample.f.size_bytes);
    expect(p.equals(q)).toBe(true);
    expect(new Set(p.subarray(0, 4096)).size).toBeGreaterThan(64); // not a constant fill
  });

  test('realistic content: threads over INBOX and Sent, cid images, bounce, complaint, non-ASCII, flags', async () => {
    const all = await dump(a, alice, undefined, 'body,attachments,headers');
    const folders = new Set(all.map((m) => m.folders[0]));
    expect([...folders].sort()).toEqual(['Archive', 'Drafts', 'INBOX', 'Sent', 'Spam', 'Trash']);
    const threadFolders = new Map<string, Set<string>>();
    for (const m of all)
      threadFolders.set(m.thread_id, (threadFolders.get(m.thread_id) ?? new Set()).add(m.folders[0]));
    expect([...threadFolders.values()].some((s) => s.has('INBOX') && s.has('Sent'))).toBe(true);
    const byMessageId = new Map(all.map((m) => [m.message_id, m]));
    const replies = all.filter((m) => m.references.length > 0);
    expect(replies.length).toBeGreaterThan(50);
    for (const r of replies)
      expect(byMessageId.get(r.references[r.references.length - 1])?.thread_id).toBe(r.thread_id);
    const inline = all.find((m) => (m.attachments ?? []).some((f) => f.inline))!;
    const cid = inline.attachments!.find((f) => f.inline)!.content_id!;
    expect(inline.body?.html).toContain(`cid:${cid}`);
    expect(all.filter((m) => m.from_email.startsWith('MAILER-DAEMON'))).toHaveLength(1);
    expect(
      all.filter((m) => (m.attachments ?? []).some((f) => f.mime_type === 'message/feedback-report')),
    ).toHaveLength(1);
    expect(all.some((m) => /[ぁ-んァ-ン一-龯]/.test(m.subject))).toBe(true);
    expect(all.some((m) => /[äöüß]/i.test(m.from_name + m.subject))).toBe(true);
    expect(all.some((m) => /\p{Extended_Pictographic}/u.test(m.subject))).toBe(true);
    expect(all.some((m) => m.body?.external_images && m.headers?.list_unsubscribe)).toBe(true);
    for (const key of ['is_read', 'is_starred', 'is_important'] as const) {
      expect(all.some((m) => m[key])).toBe(true);
      expect(all.some((m) => !m[key])).toBe(true);
    }
    expect(all.some((m) => m.labels.length > 0)).toBe(true);
    const times = all.map((m) => Date.parse(m.received_at));
    expect([...times].sort((p, q) => p - q)).toEqual(times);
    expect(times[times.length - 1] - times[0]).toBeGreaterThan(600 * 86_400_000);
  });

  test('a 100,000-message corpus pages through list_threads and serves get_messages in full batches', async () => {
    // how fast this starts and answers is measured by `npm run bench` (bench/scale.ts), not here
    const big = await clockedSandbox({ messages: 100_000 });
    try {
      const token = big.issueTokens(alice).accessToken;
      let cursor: string | null = null;
      const uids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const page: { threads: VendorThread[]; next_cursor: string | null } = await one(big, token, 'list_threads', {
          folder: 'INBOX',
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        expect(page.threads).toHaveLength(100);
        expect(page.next_cursor).not.toBeNull();
        uids.push(...page.threads.map((t) => t.last_message_uid));
        cursor = page.next_cursor;
      }
      expect(new Set(uids).size).toBe(1_000);
      const got = await commands(
        big,
        token,
        Array.from({ length: 20 }, (_, i) => ({
          command: 'get_messages',
          args: { ids: uids.slice(i * 50, i * 50 + 50) },
        })),
      );
      const batches = got.body.results.map((r) => (r.data as { messages: VendorMessage[] }).messages);
      expect(batches.flat().map((m) => m.message_uid)).toEqual(uids);
    } finally {
      await big.close();
    }
  });
});

describe('control API', () => {
  test('tokens, inject, flags, move, delete, clock, stats, faults, latency', async () => {
    const tokens = (await control<{ access_token: string; refresh_token: string }>(a, '/tokens', { mailbox: alice }))
      .body;
    expect(tokens.access_token).toMatch(/^sbx_at_/);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const injected = (
      await control<{ message_uid: string }>(a, '/inject', {
        mailbox: alice,
        message: {
          from: 'Ünal Yılmaz <unal@example.org>',
          to: alice,
          subject: 'Neue Nachricht',
          html: '<p>Hallo <img src="cid:pic1"></p>',
          attachments: [
            { filename: 'pic.png', content: png.toString('base64'), contentType: 'image/png', contentId: 'pic1' },
          ],
        },
      })
    ).body;
    const inbox = await dump(a, alice, 'INBOX', 'body,attachments');
    const msg = inbox[inbox.length - 1];
    expect(msg).toMatchObject({
      message_uid: injected.message_uid,
      from_name: 'Ünal Yılmaz',
      subject: 'Neue Nachricht',
      is_read: false,
    });
    expect(msg.attachments?.[0]).toMatchObject({ inline: true, content_id: 'pic1', size_bytes: png.length });
    expect(msg.body?.text).toBe('Hallo');
    const newest = await one<{ threads: VendorThread[] }>(a, tokens.access_token, 'list_threads', {
      folder: 'INBOX',
      limit: 1,
    });
    expect(newest.threads[0].last_message_uid).toBe(injected.message_uid);

    await control(a, '/flags', { mailbox: alice, message_uid: injected.message_uid, is_read: true, labels: ['Later'] });
    await control(a, '/move', { mailbox: alice, message_uid: injected.message_uid, folder: 'Trash' });
    const moved = (await dump(a, alice, 'Trash')).find((m) => m.message_uid === injected.message_uid);
    expect(moved).toMatchObject({ is_read: true, labels: ['Later'], folders: ['Trash'] });
    await control(a, '/delete', { mailbox: alice, message_uid: injected.message_uid });
    expect((await dump(a, alice)).some((m) => m.message_uid === injected.message_uid)).toBe(false);
    expect((await control(a, '/delete', { mailbox: alice, message_uid: injected.message_uid })).status).toBe(404);
    expect((await control(a, '/inject', { mailbox: 'nobody@sandbox.test', message: { from: 'x@y.z' } })).status).toBe(
      404,
    );
    expect((await call(`${a.urls.control}/flags`, { body: '{not json' })).status).toBe(400);

    const before = a.now();
    const advanced = await control<{ now: string }>(a, '/clock/advance', { ms: 7_200_000 });
    expect(Date.parse(advanced.body.now)).toBe(before + 7_200_000);
    expect((await commands(a, tokens.access_token, [{ command: 'list_folders' }])).body.code).toBe('TOKEN_EXPIRED');

    await control(a, '/stats/reset', {});
    const fresh = a.issueTokens(alice).accessToken;
    await commands(a, fresh, [{ command: 'list_folders' }, { command: 'search', args: { query: 'x' } }]);
    const stats = (await call<Record<string, unknown>>(`${a.urls.control}/stats?mailbox=${encodeURIComponent(alice)}`))
      .body;
    expect(stats).toMatchObject({ requests: 1, commands: { list_folders: 1, search: 1 } });

    await control(a, '/faults', { unavailableRate: 1 });
    expect((await commands(a, fresh, [{ command: 'list_folders' }])).status).toBe(503);
    expect((await control(a, '/faults', { unavailableRate: 2 })).status).toBe(400);
    await control(a, '/faults', {});
    await control(a, '/latency', { ms: 120 });
    await heldFor(a, 120, () => commands(a, fresh, [{ command: 'list_folders' }]));
    await control(a, '/latency', { ms: 0 });
    const info = (await call<{ apiKey: string; otherApiKey: string; mailboxes: string[] }>(`${a.urls.control}/info`))
      .body;
    expect(info).toMatchObject({
      apiKey: a.apiKey,
      otherApiKey: a.otherApiKey,
      mailboxes: [alice, 'bob@sandbox.test'],
    });
  });
});
