import type { MailAddress, MailAttachment, MailMessage } from '../domain/message';
import type { AttachmentMeta, Recipient, VendorMessage } from './types';

/**
 * The vendor's message JSON -> the bridge's message model: the one place that reads the
 * vendor's field names. Values pass as the vendor sent them, with the defaults mime/compose.ts
 * applied when it read the JSON itself, so a message composes to the same bytes as before.
 */

function address(r: Recipient): MailAddress {
  return r.name ? { address: r.email, name: r.name } : { address: r.email };
}

/** `references` is an assumed shape (A11 family): an array, or a whitespace-separated string. */
function referenceList(refs: unknown): string[] {
  const list = Array.isArray(refs) ? refs : typeof refs === 'string' ? refs.split(/\s+/) : [];
  return list.filter((r): r is string => typeof r === 'string');
}

function attachment(a: AttachmentMeta): MailAttachment {
  return {
    id: a.attachment_id,
    filename: a.file_name,
    contentType: a.mime_type,
    size: a.size_bytes,
    inline: a.inline,
    contentId: a.content_id ?? null,
  };
}

/**
 * The model of a message, or, when the vendor's JSON of it cannot be read (a field of the
 * wrong type), what identifies and places it, marked unreadable: one odd message must not fail
 * the batch it came in.
 */
export function toMailMessage(v: VendorMessage): MailMessage {
  try {
    return readMessage(v);
  } catch (err) {
    return { ...unreadable(v), unreadable: (err as Error).message };
  }
}

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function unreadable(v: VendorMessage): MailMessage {
  return {
    id: text(v.message_uid),
    threadId: text(v.thread_id),
    messageId: text(v.message_id),
    folders: list(v.folders),
    labels: list(v.labels),
    from: typeof v.from_email === 'string' && v.from_email ? { address: v.from_email } : null,
    to: [],
    cc: [],
    bcc: [],
    references: [],
    subject: text(v.subject),
    seen: v.is_read === true,
    flagged: v.is_starred === true,
    important: v.is_important === true,
    snoozedUntil: null,
    receivedAt: text(v.received_at),
  };
}

function readMessage(v: VendorMessage): MailMessage {
  const m: MailMessage = {
    id: v.message_uid,
    threadId: v.thread_id,
    messageId: v.message_id ?? '',
    folders: v.folders ?? [],
    labels: v.labels ?? [],
    from: v.from_email ? { address: v.from_email, name: v.from_name ?? '' } : null,
    to: (v.to ?? []).map(address),
    cc: (v.cc ?? []).map(address),
    bcc: (v.bcc ?? []).map(address),
    references: referenceList(v.references),
    subject: v.subject ?? '',
    seen: v.is_read,
    flagged: v.is_starred,
    important: v.is_important,
    snoozedUntil: v.snoozed_until ?? null,
    receivedAt: v.received_at,
  };
  if (v.body) m.body = { text: v.body.text, html: v.body.html };
  if (v.attachments) m.attachments = v.attachments.map(attachment);
  if (v.headers) m.listUnsubscribe = v.headers.list_unsubscribe;
  return m;
}
