import type { MailMessage } from '../../src/domain/message';
import { defaultAssumptions } from '../../src/upstream/assumptions';
import { compositionOf } from '../../src/upstream/composition';
import type { AttachmentMeta, VendorMessage } from '../../src/upstream/types';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { bytesOf } from './fixtures';

/**
 * Messages shaped like real-world mail, as the vendor's JSON and their attachment files, and
 * what the bridge stores of a message (its model with a composition): shared by the round trip
 * (round-trip.test.ts) and the composed tree's comparison with parsing (composed-tree.test.ts).
 */

export const compositionSettings = {
  authservId: 'mx.vendor.example',
  spamFlagThreshold: 5,
  messagePartsUpTo: 1024 * 1024,
};

export interface Case {
  msg: VendorMessage;
  files: Map<string, Buffer>;
}

/** What the bridge stores for a message: the model with its composition (message/* bytes inline). */
export function composed({ msg, files }: Case): MailMessage {
  const parts: Record<string, string> = {};
  for (const a of msg.attachments ?? [])
    if (a.mime_type.startsWith('message/')) parts[a.attachment_id] = files.get(a.attachment_id)!.toString('base64');
  return { ...toMailMessage(msg), composition: compositionOf(msg, defaultAssumptions, compositionSettings, parts) };
}

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

export const realWorld: Record<string, Case> = {
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
