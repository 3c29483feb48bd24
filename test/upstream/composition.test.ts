import { describe, expect, test } from 'vitest';
import { createLogger } from '../../src/log';
import type { MailboxApi } from '../../src/upstream/api';
import { composedMessages, compositionOf } from '../../src/upstream/composition';
import { resolveAssumptions } from '../../src/upstream/assumptions';
import { TransportError, VendorError } from '../../src/upstream/errors';
import type { VendorMessage } from '../../src/upstream/types';
import { richVendorMessage } from '../mime/fixtures';

const settings = { authservId: 'mx.vendor.example', spamFlagThreshold: 5, messagePartsUpTo: 1024 };

function message(full: Record<string, unknown>, spam = 1.5): VendorMessage {
  const m = richVendorMessage();
  return { ...m, headers: { ...m.headers!, spam_score: spam }, full_headers: full };
}

describe('composition from the vendor data', () => {
  test('A24: the copied fields of headers_json, by any case, repeated fields as arrays', () => {
    const c = compositionOf(
      message({
        headers_json: {
          'REPLY-TO': 'list@example.org',
          'List-Id': 'Team <team.example.org>',
          Received: 'not copied',
          Cc: ['a@example.org', 'b@example.org'],
          Date: 'Tue, 3 Mar 2026 09:15:00 +0100',
        },
      }),
      resolveAssumptions({}),
      settings,
      {},
    );
    expect(c.headers).toEqual({
      'reply-to': ['list@example.org'],
      'list-id': ['Team <team.example.org>'],
      cc: ['a@example.org', 'b@example.org'],
      date: ['Tue, 3 Mar 2026 09:15:00 +0100'],
    });
  });

  test('A25: detailed RFC 8601 results win over the booleans; anything else falls back to them', () => {
    const c = compositionOf(
      message({ spf_result: 'SoftFail', dkim_result: { verdict: 'pass' }, dmarc_result: 'none' }),
      resolveAssumptions({}),
      settings,
      {},
    );
    const h = richVendorMessage().headers!;
    expect(c.authentication).toEqual({
      authservId: 'mx.vendor.example',
      spf: 'softfail',
      dkim: h.dkim_success ? 'pass' : 'fail',
      dmarc: 'none',
    });
  });

  test('the field names are assumptions a config can override', () => {
    const a = resolveAssumptions({
      fullHeaders: { headersField: 'raw_headers', resultFields: { spf: 'spf' } },
    });
    const c = compositionOf(message({ raw_headers: { 'List-Id': '<x.example>' }, spf: 'neutral' }), a, settings, {});
    expect(c.headers).toEqual({ 'list-id': ['<x.example>'] });
    expect(c.authentication?.spf).toBe('neutral');
  });

  test('the spam flag follows the threshold of the moment the message is first read', () => {
    const a = resolveAssumptions({});
    expect(compositionOf(message({}, 4.9), a, settings, {}).spam).toEqual({ score: 4.9, flagged: false });
    expect(compositionOf(message({}, 5), a, settings, {}).spam).toEqual({ score: 5, flagged: true });
    expect(compositionOf(message({}, 4.9), a, { ...settings, spamFlagThreshold: 3 }, {}).spam?.flagged).toBe(true);
  });
});

describe('message/* parts', () => {
  const report = {
    attachment_id: 'report',
    file_name: 'report.txt',
    mime_type: 'message/feedback-report',
    size_bytes: 40,
    inline: false,
    content_id: null,
  };
  const vendorMessage = { ...richVendorMessage(), attachments: [report] };

  /** The parts of a message whose message/* download ends as `download` does. */
  function parts(download: () => Promise<Buffer | null>) {
    const api = {
      mailbox: 'alice@example.org',
      getMessages: async () => ({ messages: [vendorMessage], notFound: [] }),
      rawBytes: download,
    } as unknown as MailboxApi;
    return composedMessages(api, resolveAssumptions({}), settings, createLogger('silent'), ['m'], [], 'content').then(
      ({ messages }) => messages[0].composition?.messageParts,
    );
  }

  test('with a wait given, messages needing part downloads come after it, the others at once', async () => {
    const plain = { ...richVendorMessage(), message_uid: 'plain', attachments: [] };
    const downloads: string[] = [];
    const api = {
      mailbox: 'alice@example.org',
      getMessages: async () => ({ messages: [vendorMessage, plain], notFound: [] }),
      rawBytes: async (uid: string) => {
        downloads.push(uid);
        return Buffer.from('Feedback-Type: abuse\r\n');
      },
    } as unknown as MailboxApi;
    let go: () => void = () => undefined;
    const wait = new Promise<void>((resolve) => {
      go = resolve;
    });
    const { messages, later } = await composedMessages(
      api,
      resolveAssumptions({}),
      settings,
      createLogger('silent'),
      ['m', 'plain'],
      [],
      'sync',
      wait,
    );
    expect(messages.map((m) => m.id)).toEqual(['plain']);
    // the waiting message's model comes at once, without its composition
    expect(later?.messages.map((m) => [m.id, m.composition])).toEqual([[vendorMessage.message_uid, undefined]]);
    await new Promise((r) => setImmediate(r));
    expect(downloads).toEqual([]);
    go();
    const composed = await later!.composed;
    expect(downloads).toEqual([vendorMessage.message_uid]);
    expect(composed.map((m) => m.id)).toEqual([vendorMessage.message_uid]);
    expect(composed[0].composition?.messageParts).toEqual({
      report: Buffer.from('Feedback-Type: abuse\r\n').toString('base64'),
    });
  });

  test('fetched bytes are inlined', async () => {
    expect(await parts(async () => Buffer.from('Feedback-Type: abuse\r\n'))).toEqual({
      report: Buffer.from('Feedback-Type: abuse\r\n').toString('base64'),
    });
  });

  test('a permanent answer (not found, larger than the limit) leaves the part a file', async () => {
    expect(await parts(() => Promise.reject(new VendorError('NOT_FOUND', 'no such attachment', 404)))).toEqual({});
    expect(await parts(async () => null)).toEqual({});
  });

  test('a transient failure composes nothing: the read fails', async () => {
    for (const err of [
      new VendorError('INTERNAL_SERVER_ERROR', 'down', 500),
      new VendorError('RATE_LIMITED', 'slow down', 429),
      new VendorError('INVALID_TOKEN', 'revoked', 401),
      new TransportError('connection reset'),
    ])
      await expect(parts(() => Promise.reject(err))).rejects.toBe(err);
  });
});
