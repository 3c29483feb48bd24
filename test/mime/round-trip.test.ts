import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';
import { describe, expect, test } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { buildMessage } from '../../src/mime';
import { generateCorpus } from '../../src/sandbox/corpus';
import { toVendorMessage } from '../../src/sandbox/message';
import { defaultAssumptions } from '../../src/upstream/assumptions';
import { compositionOf } from '../../src/upstream/composition';
import type { AttachmentMeta, Recipient, VendorMessage } from '../../src/upstream/types';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { bytesOf } from './fixtures';

/**
 * Reading round trip: vendor JSON -> RFC 822 (mime/compose.ts, with its composition) -> parsed
 * back by mailparser gives the JSON again: addresses, subject, ids, date, bodies, attachments
 * byte for byte. For every sandbox corpus message and for messages shaped like real-world mail.
 */

const settings = { authservId: 'mx.vendor.example', spamFlagThreshold: 5, messagePartsUpTo: 1024 * 1024 };

interface Case {
  msg: VendorMessage;
  files: Map<string, Buffer>;
}

/** What the bridge stores for a message: the model with its composition (message/* bytes inline). */
function composed({ msg, files }: Case): MailMessage {
  const parts: Record<string, string> = {};
  for (const a of msg.attachments ?? [])
    if (a.mime_type.startsWith('message/')) parts[a.attachment_id] = files.get(a.attachment_id)!.toString('base64');
  return { ...toMailMessage(msg), composition: compositionOf(msg, defaultAssumptions, settings, parts) };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const crlf = (s: string) => s.replace(/\r\n|\r|\n/g, '\r\n');
const list = (a: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value).map((v) => ({ email: v.address, name: v.name }));
const recipients = (r: Recipient[]) => r.map((x) => ({ email: x.email, name: x.name ?? '' }));

async function roundTrip(c: Case): Promise<void> {
  const { msg } = c;
  const mail = await simpleParser(buildMessage(composed(c), c.files), { skipImageLinks: true });
  const original = (msg.full_headers?.headers_json ?? {}) as Record<string, string>;
  expect(mail.subject ?? '').toBe(msg.subject);
  expect(list(mail.from)).toEqual([{ email: msg.from_email, name: msg.from_name }]);
  expect(list(mail.to)).toEqual(recipients(msg.to));
  expect(list(mail.cc)).toEqual(recipients(msg.cc));
  expect(mail.messageId).toBe(msg.message_id);
  const refs = typeof mail.references === 'string' ? [mail.references] : (mail.references ?? []);
  expect(refs).toEqual(msg.references);
  if (msg.references.length) expect(mail.inReplyTo).toBe(msg.references.at(-1));
  expect(mail.date?.toISOString()).toBe(
    new Date(original.Date ?? msg.received_at).toISOString().replace(/\.\d+Z$/, '.000Z'),
  );
  expect(crlf(mail.text ?? '').replace(/(\r\n)+$/, '')).toBe(crlf(msg.body?.text ?? '').replace(/(\r\n)+$/, ''));
  if (msg.body?.html) expect(crlf(mail.html || '')).toBe(crlf(msg.body.html));
  const attachments = msg.attachments ?? [];
  expect(mail.attachments.map((a) => a.filename)).toEqual(attachments.map((a) => a.file_name));
  for (const [i, got] of mail.attachments.entries()) {
    const want = attachments[i];
    const bytes = c.files.get(want.attachment_id)!;
    expect(got.contentType).toBe(want.mime_type);
    // message/* parts are served with CRLF line ends (RFC 2046 5.2.1: they cannot be encoded)
    const served = want.mime_type.startsWith('message/')
      ? Buffer.from(crlf(bytes.toString('latin1')), 'latin1')
      : bytes;
    expect(sha256(got.content)).toBe(sha256(served));
    expect(got.contentDisposition).toBe(want.inline ? 'inline' : 'attachment');
    expect(got.contentId ?? null).toBe(want.content_id ? `<${want.content_id}>` : null);
  }
}

describe('sandbox corpus', () => {
  test('every message survives JSON -> RFC 822 -> JSON', async () => {
    const corpus = generateCorpus({
      seed: 7,
      owner: 'alice@sandbox.test',
      count: 200,
      anchor: Date.UTC(2026, 0, 1),
      firstSeq: 1,
    });
    for (const m of corpus) {
      // the 3 MB and 6 MB files are left to the other tests: bytes, not size, are checked here
      if (m.content.attachments().some((a) => a.meta.size_bytes > 1_000_000)) continue;
      const files = new Map(m.content.attachments().map((a) => [a.meta.attachment_id, Buffer.concat([...a.chunks()])]));
      await roundTrip({ msg: toVendorMessage(m, ['body', 'attachments', 'headers', 'full_headers']), files });
    }
  });
});

function vendorMessage(uid: string, extra: Partial<VendorMessage>): VendorMessage {
  return {
    message_uid: uid,
    thread_id: `t-${uid}`,
    message_id: `<${uid}@real.example>`,
    folders: ['INBOX'],
    labels: [],
    from_name: 'Sender',
    from_email: 'sender@real.example',
    to: [{ email: 'alice@sandbox.test', name: 'Alice' }],
    cc: [],
    bcc: [],
    references: [],
    subject: 'Hello',
    is_read: false,
    is_starred: false,
    is_important: false,
    snoozed_until: null,
    received_at: '2026-03-04T10:11:12.000Z',
    body: { html: '<p>Hello</p>', text: 'Hello', external_images: false },
    headers: {
      content_type: 'multipart/alternative',
      ip_address: '198.51.100.1',
      is_tls: true,
      spf_success: true,
      dkim_success: true,
      dmarc_success: false,
      spam_score: 0.4,
      list_unsubscribe: null,
    },
    attachments: [],
    ...extra,
  };
}

function file(id: string, name: string, mime: string, bytes: Buffer, inline = false, cid: string | null = null) {
  const meta: AttachmentMeta = {
    attachment_id: id,
    file_name: name,
    mime_type: mime,
    size_bytes: bytes.length,
    inline,
    content_id: cid,
  };
  return { meta, bytes };
}

function withFiles(msg: VendorMessage, files: Array<ReturnType<typeof file>>): Case {
  return {
    msg: { ...msg, attachments: files.map((f) => f.meta) },
    files: new Map(files.map((f) => [f.meta.attachment_id, f.bytes])),
  };
}

const realWorld: Record<string, Case> = {
  'multipart/alternative with inline images': withFiles(
    vendorMessage('inline', {
      body: {
        html: '<p>Logo: <img src="cid:logo.1@real.example"> and <img src="cid:sig.2@real.example"></p>',
        text: 'Logo and signature',
        external_images: false,
      },
    }),
    [
      file('a1', 'logo.png', 'image/png', bytesOf('logo', 2_345), true, 'logo.1@real.example'),
      file('a2', 'signature.gif', 'image/gif', bytesOf('sig', 987), true, 'sig.2@real.example'),
    ],
  ),
  'calendar invite': withFiles(
    vendorMessage('invite', {
      subject: 'Einladung: Planung Q3 @ Do 5. März 2026 10:00',
      body: { html: '<p>Invitation</p>', text: 'Invitation', external_images: false },
    }),
    [
      file(
        'c1',
        'invite.ics',
        'text/calendar',
        Buffer.from(
          'BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nSUMMARY:Planung Q3\r\nDTSTART:20260305T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
        ),
      ),
    ],
  ),
  'forwarded message/rfc822': withFiles(vendorMessage('forward', { subject: 'Fwd: Numbers' }), [
    file(
      'f1',
      'Numbers.eml',
      'message/rfc822',
      Buffer.from(
        'From: carol@example.org\nTo: bob@example.com\nSubject: Numbers\nMessage-ID: <n@example.org>\n\nThe numbers: 1, 2, 3.\nGrüße\n',
      ),
    ),
  ]),
  'charsets other than UTF-8 (decoded by the vendor)': withFiles(
    vendorMessage('charsets', {
      from_name: 'Иван Петров',
      subject: '見積書の件 — Привет — Grüße',
      body: {
        html: '<p>日本語 Русский Ελληνικά</p>',
        text: 'Shift_JIS: 日本語\nKOI8-R: Русский\nISO-8859-7: Ελληνικά',
        external_images: false,
      },
    }),
    [],
  ),
  'long folded headers': withFiles(
    vendorMessage('long', {
      subject: `Re: ${'A very long subject that keeps going '.repeat(8)}`.trim(),
      to: Array.from({ length: 30 }, (_, i) => ({
        email: `person${i}@example.com`,
        name: `Person Number ${i}, Team ${i % 3}`,
      })),
      references: Array.from({ length: 20 }, (_, i) => `<ref-${i}.${'x'.repeat(30)}@example.com>`),
    }),
    [],
  ),
  'RFC 2231 file names': withFiles(vendorMessage('rfc2231', {}), [
    file(
      'r1',
      `Übersichtsplan für das Geschäftsjahr 2026 — endgültige Fassung (überarbeitet) ${'ä'.repeat(40)}.pdf`,
      'application/pdf',
      bytesOf('pdf', 5_000),
    ),
    file(
      'r2',
      '報告書 2026年度.xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      bytesOf('xlsx', 3_000),
    ),
  ]),
};

describe('messages shaped like real-world mail', () => {
  for (const [name, c] of Object.entries(realWorld)) {
    test(name, async () => {
      await roundTrip(c);
    });
  }
});
