import { randomUUID } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { Assumptions } from '../upstream/assumptions';
import type { SendRequest } from '../upstream/types';

/**
 * A submitted RFC 822 message becomes /v3.0/send payloads, one per envelope recipient: the
 * route takes a single `to`, so To, Cc and Bcc recipients each get their own call (Bcc
 * recipients stay invisible because the vendor writes only `to` into the delivered
 * headers). Text-only mail becomes escaped HTML; attachments, Reply-To and Message-ID go in
 * the optional fields of assumption A16.
 */

export interface Submission {
  /** Message-ID of the submission (the client's, or one generated here). */
  messageId: string;
  subject: string;
  payloads: SendRequest[];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export function textToHtml(text: string): string {
  return `<pre style="white-space: pre-wrap; font-family: inherit">${escapeHtml(text)}</pre>`;
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): { name: string; address: string } | null {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  const first = list.flatMap((a) => a.value)[0];
  return first?.address ? { name: first.name ?? '', address: first.address } : null;
}

function threadingHeaders(mail: ParsedMail, messageId: string): Record<string, string> {
  const headers: Record<string, string> = { 'Message-ID': messageId };
  if (mail.inReplyTo) headers['In-Reply-To'] = mail.inReplyTo;
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  if (refs.length) headers.References = refs.join(' ');
  return headers;
}

export async function buildSubmission(raw: Buffer, from: string, recipients: string[], assumptions: Assumptions): Promise<Submission> {
  const mail = await simpleParser(raw, { skipTextToHtml: true });
  const messageId = mail.messageId ?? `<${randomUUID()}@mailbridge.local>`;
  const fields = assumptions.send.optionalFields;
  const sender = firstAddress(mail.from);
  const html = typeof mail.html === 'string' && mail.html ? mail.html : textToHtml(mail.text ?? '');
  const replyTo = firstAddress(mail.replyTo);
  const attachments = mail.attachments.map((a) => ({
    filename: a.filename ?? 'attachment',
    content: a.content.toString('base64'),
    contentType: a.contentType,
    ...(a.contentId ? { contentId: a.contentId.replace(/^<|>$/g, '') } : {}),
  }));
  const subject = mail.subject ?? '';
  const base = {
    from,
    ...(sender?.name ? { senderName: sender.name } : {}),
    subject,
    body: html,
    ...(mail.text ? { [fields.text]: mail.text } : {}),
    ...(replyTo ? { [fields.replyTo]: replyTo.address } : {}),
    [fields.headers]: threadingHeaders(mail, messageId),
    ...(attachments.length ? { [fields.attachments]: attachments } : {}),
  };
  return { messageId, subject, payloads: recipients.map((to) => ({ ...base, to })) };
}
