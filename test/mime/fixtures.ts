import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AttachmentSource } from '../../src/mime';
import type { MailMessage } from '../../src/domain/message';
import type { AttachmentMeta, VendorMessage } from '../../src/upstream/types';
import { toMailMessage } from '../../src/upstream/vendor-message';

/** Deterministic pseudo-random bytes (no Math.random: the cross-process test rebuilds them). */
export function bytesOf(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  let block = createHash('sha256').update(seed).digest();
  for (let off = 0; off < length; off += block.length) {
    block.copy(out, off, 0, Math.min(block.length, length - off));
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

function attachment(id: string, bytes: number, extra: Partial<AttachmentMeta> = {}): AttachmentMeta {
  return {
    attachment_id: id,
    file_name: `${id}.bin`,
    mime_type: 'application/octet-stream',
    size_bytes: bytes,
    inline: false,
    content_id: null,
    ...extra,
  };
}

export const attachmentBytes = new Map<string, Buffer>([
  ['big', bytesOf('big', 3 * 1024 * 1024 + 1)],
  ['empty', Buffer.alloc(0)],
  ['logo', bytesOf('logo', 4321)],
  ['notes', Buffer.from('first line\r\nzweite Zeile äöü\r\n'.repeat(40))],
]);

/** A message as the vendor's JSON gives it. */
export function richVendorMessage(): VendorMessage {
  return {
    message_uid: 'msg-0001',
    thread_id: 'thr-1',
    message_id: '<orig-1@example.org>',
    folders: ['INBOX'],
    labels: ['Work'],
    from_name: 'Jürgen Ümlaut',
    from_email: 'juergen@example.org',
    to: [{ email: 'me@example.com', name: 'Mé Myself' }],
    cc: [{ email: 'cc@example.com' }],
    bcc: [],
    references: ['<root@example.org>', '<parent@example.org>'],
    subject: 'Grüße aus Köln — Bericht 📎',
    is_read: false,
    is_starred: true,
    is_important: false,
    snoozed_until: null,
    received_at: '2024-03-05T08:09:10Z',
    body: {
      html: '<p>Hallo <b>Welt</b> ünd <img src="cid:logo@x"></p>',
      text: 'Hallo Welt ünd\nzweite Zeile\n',
      external_images: false,
    },
    headers: {
      content_type: 'multipart/mixed',
      ip_address: '192.0.2.1',
      is_tls: true,
      spf_success: true,
      dkim_success: true,
      dmarc_success: true,
      spam_score: 0.1,
      list_unsubscribe: '<mailto:unsub@example.org>',
    },
    attachments: [
      attachment('big', 3 * 1024 * 1024 + 1, {
        file_name: 'Präsentation großer Teil.pdf',
        mime_type: 'application/pdf',
      }),
      attachment('empty', 0, { file_name: 'empty.txt', mime_type: 'text/plain' }),
      attachment('logo', 4321, { file_name: 'logo.png', mime_type: 'image/png', inline: true, content_id: '<logo@x>' }),
      attachment('notes', attachmentBytes.get('notes')!.length, { file_name: 'notes.txt', mime_type: 'text/plain' }),
    ],
  };
}

/** The same message in the bridge's model, as the connector hands it on. */
export function richMessage(): MailMessage {
  return toMailMessage(richVendorMessage());
}

/** In-memory vendor download that counts what was fetched. */
export class MemorySource implements AttachmentSource {
  opened: string[] = [];
  constructor(private readonly bytes: ReadonlyMap<string, Buffer>) {}
  async open(messageUid: string, attachmentId: string): Promise<Readable> {
    this.opened.push(`${messageUid}/${attachmentId}`);
    const b = this.bytes.get(attachmentId);
    if (!b) throw new Error(`no attachment ${attachmentId}`);
    // several chunks, not aligned to base64 groups, like a network body
    const chunks: Buffer[] = [];
    for (let off = 0; off < b.length; off += 65_531) chunks.push(b.subarray(off, off + 65_531));
    return Readable.from(chunks);
  }
}
