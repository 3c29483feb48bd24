import type { MailAddress, MailMessage } from '../domain/message';

/**
 * Reads the `message` column of message_cache. Rows are the JSON of a MailMessage; rows
 * written before the bridge had its own message model hold the vendor's JSON of that time,
 * which is read here field by field. That layout is frozen (it is what those versions wrote),
 * so a message cached by any version composes to the bytes it was first served with, and no
 * migration has to rewrite every cached message.
 */

/** The row layout of the versions before the message model. */
interface EarlierRow {
  message_uid: string;
  thread_id: string;
  message_id?: string;
  folders?: string[];
  labels?: string[];
  from_name?: string;
  from_email?: string;
  to?: Array<{ email: string; name?: string }>;
  cc?: Array<{ email: string; name?: string }>;
  bcc?: Array<{ email: string; name?: string }>;
  references?: unknown;
  subject?: string;
  is_read: boolean;
  is_starred: boolean;
  is_important: boolean;
  snoozed_until?: string | null;
  received_at: string;
  body?: { text: string; html: string };
  attachments?: Array<{
    attachment_id: string;
    file_name: string;
    mime_type: string;
    size_bytes: number;
    inline: boolean;
    content_id?: string | null;
  }>;
  headers?: { list_unsubscribe?: string | null };
  composition?: MailMessage['composition'];
}

const addresses = (list: EarlierRow['to']): MailAddress[] =>
  (list ?? []).map((r) => (r.name ? { address: r.email, name: r.name } : { address: r.email }));

function fromEarlierRow(r: EarlierRow): MailMessage {
  const refs = r.references;
  return {
    id: r.message_uid,
    threadId: r.thread_id,
    messageId: r.message_id ?? '',
    folders: r.folders ?? [],
    labels: r.labels ?? [],
    from: r.from_email ? { address: r.from_email, name: r.from_name ?? '' } : null,
    to: addresses(r.to),
    cc: addresses(r.cc),
    bcc: addresses(r.bcc),
    references: (Array.isArray(refs) ? refs : typeof refs === 'string' ? refs.split(/\s+/) : []).filter(
      (x): x is string => typeof x === 'string',
    ),
    subject: r.subject ?? '',
    seen: r.is_read,
    flagged: r.is_starred,
    important: r.is_important,
    snoozedUntil: r.snoozed_until ?? null,
    receivedAt: r.received_at,
    ...(r.body && { body: { text: r.body.text, html: r.body.html } }),
    ...(r.attachments && {
      attachments: r.attachments.map((a) => ({
        id: a.attachment_id,
        filename: a.file_name,
        contentType: a.mime_type,
        size: a.size_bytes,
        inline: a.inline,
        contentId: a.content_id ?? null,
      })),
    }),
    ...(r.headers && { listUnsubscribe: r.headers.list_unsubscribe }),
    ...(r.composition && { composition: r.composition }),
  };
}

/**
 * An earlier row whose vendor JSON has a field of the wrong type was served as a placeholder
 * (mime/describe.ts): it reads as unreadable, with the fields that placeholder was built from.
 */
function unreadableEarlierRow(r: EarlierRow, problem: string): MailMessage {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    id: text(r.message_uid),
    threadId: text(r.thread_id),
    messageId: text(r.message_id),
    folders: [],
    labels: [],
    from: text(r.from_email) ? { address: text(r.from_email) } : null,
    to: [],
    cc: [],
    bcc: [],
    references: [],
    subject: text(r.subject),
    seen: false,
    flagged: false,
    important: false,
    snoozedUntil: null,
    receivedAt: text(r.received_at),
    unreadable: problem,
  };
}

export function readStoredMessage(json: string): MailMessage {
  const value = JSON.parse(json) as MailMessage | EarlierRow;
  if (!('message_uid' in value)) return value;
  try {
    return fromEarlierRow(value);
  } catch (err) {
    return unreadableEarlierRow(value, (err as Error).message);
  }
}
