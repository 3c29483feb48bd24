import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox';
import type { VendorFolder, VendorMessage, VendorThread } from '../../src/upstream/types';
import { call, clockedSandbox, commands, control, dump, heldFor, one, politeFetch } from './http-client';

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';
let sb: Sandbox;
let token: string;

beforeAll(async () => {
  sb = await clockedSandbox({ messages: 300, seed: 7 });
  token = sb.issueTokens(alice).accessToken;
});

afterAll(async () => {
  await sb?.close();
});

describe('authentication (spec 5, 7.2)', () => {
  test('missing, malformed and wrong-kind tokens are 401 with type/code/message', async () => {
    const none = await call(`${sb.urls.read}/v1`, { body: { commands: [{ command: 'list_folders' }] } });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ type: 'ERROR', code: 'MISSING_AUTH_HEADER' });
    expect(typeof none.body.message).toBe('string');
    expect((await commands(sb, 'nonsense', [{ command: 'list_folders' }])).body).toMatchObject({
      code: 'INVALID_TOKEN',
    });
    const pair = sb.issueTokens(alice);
    expect(pair.accessToken).toMatch(/^sbx_at_/);
    expect(pair.refreshToken).toMatch(/^sbx_rt_/);
    expect((await commands(sb, pair.refreshToken, [{ command: 'list_folders' }])).status).toBe(401);
  });

  test('bare and Bearer forms are both accepted', async () => {
    expect((await commands(sb, token, [{ command: 'list_folders' }])).status).toBe(200);
    expect((await commands(sb, `Bearer ${token}`, [{ command: 'list_folders' }])).status).toBe(200);
  });
});

describe('command endpoint envelope', () => {
  test('at most 20 commands; 21 is an HTTP 400 INVALID_ARGS', async () => {
    const twenty = await commands(
      sb,
      token,
      Array.from({ length: 20 }, () => ({ command: 'list_folders' })),
    );
    expect(twenty.status).toBe(200);
    expect(twenty.body.results.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    const over = await commands(
      sb,
      token,
      Array.from({ length: 21 }, () => ({ command: 'list_folders' })),
    );
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ type: 'ERROR', code: 'INVALID_ARGS' });
  });

  test('bad JSON is a 400, not a crash', async () => {
    const r = await call(`${sb.urls.read}/v1`, { headers: { authorization: token }, body: '{"commands": [' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_ARGS');
    expect((await commands(sb, token, [{ command: 'list_folders' }])).status).toBe(200);
  });

  test('command errors come back inside results with HTTP 200, next to successes', async () => {
    const r = await commands(sb, token, [
      { command: 'list_folders' },
      { command: 'frobnicate' },
      { command: 'list_threads', args: {} },
      { command: 'get_messages', args: { ids: 'x' } },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.type).toBe('SUCCESS');
    const [ok, unknown, missing, invalid] = r.body.results;
    expect(ok).toMatchObject({ command: 'list_folders', id: '0', type: 'SUCCESS' });
    expect(unknown).toMatchObject({ command: 'frobnicate', id: '1', type: 'ERROR', code: 'UNKNOWN_COMMAND' });
    expect(missing).toMatchObject({ id: '2', type: 'ERROR', code: 'INVALID_ARGS' });
    expect(invalid).toMatchObject({ id: '3', type: 'ERROR', code: 'INVALID_ARGS' });
    expect(typeof invalid.message).toBe('string');
  });
});

describe('reading commands', () => {
  test('list_folders: six folders with roles and counts matching the state (A10)', async () => {
    const { folders } = await one<{ folders: VendorFolder[] }>(sb, token, 'list_folders');
    expect(folders.map((f) => [f.name, f.role])).toEqual([
      ['INBOX', 'inbox'],
      ['Sent', 'sent'],
      ['Drafts', 'drafts'],
      ['Trash', 'trash'],
      ['Spam', 'spam'],
      ['Archive', 'archive'],
    ]);
    const inbox = await dump(sb, alice, 'INBOX');
    expect(folders[0].total).toBe(inbox.length);
    expect(folders[0].unread).toBe(inbox.filter((m) => !m.is_read).length);
  });

  test('list_threads pages with the cursor through every INBOX thread once, newest first (A1-A3, A11)', async () => {
    const seen: VendorThread[] = [];
    let cursor: string | null = null;
    do {
      const page: { threads: VendorThread[]; next_cursor: string | null } = await one(sb, token, 'list_threads', {
        folder: 'INBOX',
        limit: 7,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.threads.length).toBeLessThanOrEqual(7);
      seen.push(...page.threads);
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen.map((t) => t.thread_id)).size).toBe(seen.length);
    const times = seen.map((t) => Date.parse(t.last_received_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const inbox = await dump(sb, alice, 'INBOX');
    expect(seen.flatMap((t) => t.message_uids).sort()).toEqual(inbox.map((m) => m.message_uid).sort());
    for (const t of seen) {
      expect(t.last_message_uid).toBe(t.message_uids[t.message_uids.length - 1]);
      expect(t.message_count).toBeGreaterThanOrEqual(t.message_uids.length);
    }
    expect(seen.some((t) => t.message_count > t.message_uids.length)).toBe(true); // threads span INBOX and Sent
  });

  test('list_threads: is_read filter, limit bounds, bad cursor, unknown folder', async () => {
    const unread = await one<{ threads: VendorThread[] }>(sb, token, 'list_threads', {
      folder: 'INBOX',
      is_read: false,
      limit: 100,
    });
    const byUid = new Map((await dump(sb, alice, 'INBOX')).map((m) => [m.message_uid, m]));
    expect(unread.threads.length).toBeGreaterThan(0);
    for (const t of unread.threads) expect(t.message_uids.some((u) => byUid.get(u)?.is_read === false)).toBe(true);
    const r = await commands(sb, token, [
      { command: 'list_threads', args: { folder: 'INBOX', limit: 101 } },
      { command: 'list_threads', args: { folder: 'INBOX', cursor: '!!' } },
      { command: 'list_threads', args: { folder: 'Nope' } },
      { command: 'list_threads', args: { folder: 'INBOX', limit: 100 } },
    ]);
    expect(r.body.results.map((x) => x.code ?? x.type)).toEqual([
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
      'SUCCESS',
    ]);
  });

  test('get_messages: include variants, not_found and the 50-id limit', async () => {
    const all = await dump(sb, alice);
    const ids = all.slice(0, 50).map((m) => m.message_uid);
    const full = await one<{ messages: VendorMessage[]; not_found: string[] }>(sb, token, 'get_messages', {
      ids: [...ids.slice(0, 49), 'm_missing'],
    });
    expect(full.messages).toHaveLength(49);
    expect(full.not_found).toEqual(['m_missing']);
    const m = full.messages[0];
    expect(m.body).toMatchObject({
      html: expect.any(String),
      text: expect.any(String),
      external_images: expect.any(Boolean),
    });
    expect(Array.isArray(m.attachments)).toBe(true);
    expect(m.headers).toBeUndefined();
    expect(m.message_id).toMatch(/^<[^>]+>$/);
    const base = await one<{ messages: VendorMessage[] }>(sb, token, 'get_messages', { id: ids[0], include: [] });
    expect(base.messages[0].body).toBeUndefined();
    expect(base.messages[0].attachments).toBeUndefined();
    expect(base.messages[0].subject).toBe(all[0].subject);
    const hdr = await one<{ messages: VendorMessage[] }>(sb, token, 'get_messages', {
      id: ids[0],
      include: ['headers', 'full_headers'],
    });
    expect(Object.keys(hdr.messages[0].headers ?? {}).sort()).toEqual([
      'content_type',
      'dkim_success',
      'dmarc_success',
      'ip_address',
      'is_tls',
      'list_unsubscribe',
      'spam_score',
      'spf_success',
    ]);
    expect(hdr.messages[0].full_headers).toMatchObject({
      content_type: expect.any(String),
      headers_json: expect.any(Object),
      received_chain: expect.any(Array),
      spf_result: expect.any(String),
    });
    const over = await commands(sb, token, [
      { command: 'get_messages', args: { ids: all.slice(0, 51).map((x) => x.message_uid) } },
      { command: 'get_messages', args: { ids } },
    ]);
    expect(over.body.results[0]).toMatchObject({ type: 'ERROR', code: 'INVALID_ARGS' });
    expect((over.body.results[1].data as { messages: unknown[] }).messages).toHaveLength(50);
  });

  test('search: case-insensitive over subject, addresses and body text; folder and pages (A4)', async () => {
    const all = await dump(sb, alice, undefined, 'body');
    const expectUids = (pred: (m: VendorMessage) => boolean) =>
      all
        .filter(pred)
        .map((m) => m.message_uid)
        .sort();
    const collect = async (args: Record<string, unknown>) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { message_uids: string[]; next_cursor: string | null } = await one(sb, token, 'search', {
          ...args,
          limit: 20,
          ...(cursor ? { cursor } : {}),
        });
        out.push(...page.message_uids);
        cursor = page.next_cursor;
      } while (cursor);
      return out.sort();
    };
    expect(await collect({ query: 'MÜNCHEN' })).toEqual(
      expectUids(
        (m) => m.subject.toLowerCase().includes('münchen') || (m.body?.text ?? '').toLowerCase().includes('münchen'),
      ),
    );
    const body = await collect({ query: 'coffee machine' });
    expect(body.length).toBeGreaterThan(0);
    expect(body).toEqual(expectUids((m) => (m.body?.text ?? '').toLowerCase().includes('coffee machine')));
    expect(await collect({ query: 'yamada', folder: 'Sent' })).toEqual(
      expectUids((m) => m.folders[0] === 'Sent' && JSON.stringify([m.from_email, m.to, m.cc]).includes('yamada')),
    );
  });
});

describe('organising and sending', () => {
  test('flag, label and move change the state and report unknown ids', async () => {
    const [a, b] = (await dump(sb, alice, 'INBOX')).filter((m) => !m.is_read && !m.is_starred);
    const flagged = await one<{ updated: string[]; not_found: string[] }>(sb, token, 'flag', {
      ids: [a.message_uid, 'm_nope'],
      is_read: true,
      is_starred: true,
    });
    expect(flagged).toEqual({ updated: [a.message_uid], not_found: ['m_nope'] });
    await one(sb, token, 'label', { ids: [a.message_uid, b.message_uid], add: ['Projekt', 'Work'] });
    await one(sb, token, 'label', { ids: [b.message_uid], remove: ['Work'] });
    const moved = await one<{ moved: string[] }>(sb, token, 'move', { ids: [b.message_uid], folder: 'Archive' });
    expect(moved.moved).toEqual([b.message_uid]);
    const after = new Map((await dump(sb, alice)).map((m) => [m.message_uid, m]));
    expect(after.get(a.message_uid)).toMatchObject({ is_read: true, is_starred: true, folders: ['INBOX'] });
    expect(after.get(a.message_uid)?.labels).toEqual(expect.arrayContaining(['Projekt', 'Work']));
    expect(after.get(b.message_uid)).toMatchObject({ folders: ['Archive'], is_read: false });
    expect(after.get(b.message_uid)?.labels).toContain('Projekt');
    expect(after.get(b.message_uid)?.labels).not.toContain('Work');
    const bad = await commands(sb, token, [
      { command: 'flag', args: { ids: [a.message_uid] } },
      { command: 'move', args: { ids: [a.message_uid], folder: 'Elsewhere' } },
    ]);
    expect(bad.body.results.map((r) => r.code)).toEqual(['INVALID_ARGS', 'INVALID_ARGS']);
  });

  test('send delivers to a sandbox mailbox and files a Sent copy; reply joins the thread (A8, A9)', async () => {
    const sent = await one<{ message_uid: string }>(sb, token, 'send', {
      to: [{ email: bob, name: 'Bob' }],
      subject: 'Plan für morgen 🗓️',
      text: 'Treffen um 10?',
    });
    const aliceSent = (await dump(sb, alice, 'Sent', 'body')).find((m) => m.message_uid === sent.message_uid);
    expect(aliceSent).toMatchObject({ is_read: true, subject: 'Plan für morgen 🗓️', from_email: alice });
    const bobInbox = await dump(sb, bob, 'INBOX', 'body');
    const received = bobInbox.find((m) => m.message_id === aliceSent?.message_id);
    expect(received).toMatchObject({ is_read: false, from_email: alice });
    expect(received?.body?.text).toBe('Treffen um 10?');
    const bobToken = sb.issueTokens(bob).accessToken;
    const reply = await one<{ message_uid: string }>(sb, bobToken, 'reply', {
      message_uid: received?.message_uid,
      text: 'Passt!',
    });
    const bobSent = (await dump(sb, bob, 'Sent')).find((m) => m.message_uid === reply.message_uid);
    expect(bobSent?.subject).toBe('Re: Plan für morgen 🗓️');
    expect(bobSent?.references).toEqual([aliceSent?.message_id]);
    const back = (await dump(sb, alice, 'INBOX')).find((m) => m.message_id === bobSent?.message_id);
    expect(back?.thread_id).toBe(aliceSent?.thread_id);
  });
});

describe('raw download (spec 4.2)', () => {
  test('streams the attachment bytes with X-Original-Content-Type; unknown ids are 404', async () => {
    const withFile = (await dump(sb, alice)).find((m) =>
      (m.attachments ?? []).some((a) => a.size_bytes > 1000),
    ) as VendorMessage;
    const att = (withFile.attachments ?? []).find((a) => a.size_bytes > 1000)!;
    const url = `${sb.urls.read}/v1/raw?message_id=${withFile.message_uid}&attachment_id=${att.attachment_id}`;
    const res = await politeFetch(sb, url, { headers: { authorization: token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-original-content-type')).toBe(att.mime_type);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(att.size_bytes);
    const again = Buffer.from(await (await politeFetch(sb, url, { headers: { authorization: token } })).arrayBuffer());
    expect(again.equals(bytes)).toBe(true);
    const missing = await politeFetch(
      sb,
      `${sb.urls.read}/v1/raw?message_id=${withFile.message_uid}&attachment_id=att_nope`,
      { headers: { authorization: token } },
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: 'ERROR', code: 'NOT_FOUND' });
    expect((await politeFetch(sb, `${sb.urls.read}/v1/raw`, { headers: { authorization: token } })).status).toBe(400);
    expect((await call(url)).status).toBe(401);
    expect(sb.stats(alice).rawDownloads).toBeGreaterThanOrEqual(2);
  });
});

describe('tokens on the sandbox clock (spec 3, 4.3)', () => {
  test('expiry after 1 h, rotation kills the used refresh token at once, revocation', async () => {
    const pair = sb.issueTokens(alice);
    sb.advanceClock(3_600_000);
    expect((await commands(sb, pair.accessToken, [{ command: 'list_folders' }])).body).toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    const refreshed = await call<{ access_token: string; refresh_token: string; expires_in: number }>(
      `${sb.urls.read}/v1/token/refresh`,
      { body: { refresh_token: pair.refreshToken } },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.expires_in).toBe(3600);
    expect(refreshed.body.refresh_token).not.toBe(pair.refreshToken);
    expect((await commands(sb, refreshed.body.access_token, [{ command: 'list_folders' }])).status).toBe(200);
    const reused = await call(`${sb.urls.read}/v1/token/refresh`, { body: { refresh_token: pair.refreshToken } });
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('INVALID_TOKEN');
    expect((await call(`${sb.urls.read}/v1/token/refresh`, { body: {} })).status).toBe(400);
    sb.advanceClock(15 * 86_400_000);
    expect(
      (await call(`${sb.urls.read}/v1/token/refresh`, { body: { refresh_token: refreshed.body.refresh_token } })).body
        .code,
    ).toBe('TOKEN_EXPIRED');
    const fresh = sb.issueTokens(bob);
    sb.revokeTokens(bob);
    expect((await commands(sb, fresh.accessToken, [{ command: 'list_folders' }])).body.code).toBe('INVALID_TOKEN');
    expect(
      (await call(`${sb.urls.read}/v1/token/refresh`, { body: { refresh_token: fresh.refreshToken } })).body.code,
    ).toBe('INVALID_TOKEN');
    token = sb.issueTokens(alice).accessToken;
    expect(sb.stats(alice).refreshes).toBe(1);
  });
});

describe('faults and latency', () => {
  test('unavailable, internal command errors, resets and latency', async () => {
    try {
      sb.setFaults({ unavailableRate: 1 });
      expect((await commands(sb, token, [{ command: 'list_folders' }])).body).toMatchObject({
        type: 'ERROR',
        code: 'AUTH_UNAVAILABLE',
      });
      sb.setFaults({ errorRate: 1 });
      const r = await commands(sb, token, [{ command: 'list_folders' }]);
      expect(r.status).toBe(200);
      expect(r.body.results[0]).toMatchObject({ type: 'ERROR', code: 'INTERNAL' });
      sb.setFaults({ resetRate: 1 });
      await expect(commands(sb, token, [{ command: 'list_folders' }])).rejects.toThrow();
      sb.setFaults({});
      sb.setLatency(150);
      expect((await heldFor(sb, 150, () => commands(sb, token, [{ command: 'list_folders' }]))).status).toBe(200);
    } finally {
      sb.setFaults({});
      sb.setLatency(0);
    }
  });
  test('a read on its way answers with the state at the end of its latency, changes made meanwhile included', async () => {
    const [flagged, moved, labelled] = await dump(sb, alice, 'INBOX', '');
    const read = [
      { command: 'get_messages', args: { ids: [flagged.message_uid, moved.message_uid, labelled.message_uid] } },
      { command: 'list_folders' },
      { command: 'list_threads', args: { folder: 'INBOX', limit: 5 } },
      { command: 'search', args: { query: 'Held on its way' } },
    ];
    try {
      sb.setLatency(100);
      const held = await heldFor(
        sb,
        100,
        () => commands(sb, token, read),
        async () => {
          await control(sb, '/flags', { mailbox: alice, message_uid: flagged.message_uid, is_read: !flagged.is_read });
          await control(sb, '/move', { mailbox: alice, message_uid: moved.message_uid, folder: 'Archive' });
          await control(sb, '/inject', {
            mailbox: alice,
            message: { from: 'carol@example.com', subject: 'Held on its way', text: 'new' },
          });
          // the control API's way and the store's own: both are changes
          const message = sb.store.mailbox(alice)?.messages.get(labelled.message_uid);
          if (message) message.labels = [...message.labels, 'Held'];
        },
      );
      const [messages, folders, threads, found] = held.body.results.map((r) => r.data as Record<string, unknown>);
      const byUid = new Map((messages.messages as VendorMessage[]).map((m) => [m.message_uid, m]));
      expect(byUid.get(flagged.message_uid)?.is_read).toBe(!flagged.is_read);
      expect(byUid.get(moved.message_uid)?.folders).toEqual(['Archive']);
      expect(byUid.get(labelled.message_uid)?.labels).toContain('Held');
      expect(folders.labels).toContain('Held');
      expect((threads.threads as VendorThread[])[0].subject).toBe('Held on its way');
      expect(found.message_uids).toHaveLength(1);
      sb.setLatency(0);
      // the very answer the same request gets now, the state unchanged since
      expect((await commands(sb, token, read)).body).toEqual(held.body);
      sb.setLatency(100);
      const failed = await heldFor(
        sb,
        100,
        () => commands(sb, token, read.slice(1, 2)),
        async () => sb.setFaults({ errorRate: 1 }),
      );
      expect(failed.body.results[0]).toMatchObject({ type: 'ERROR', code: 'INTERNAL' });
    } finally {
      sb.setFaults({});
      sb.setLatency(0);
    }
  });
});
