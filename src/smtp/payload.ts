import { randomUUID } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { Assumptions } from '../upstream/assumptions';
import type { SendRequest } from '../upstream/types';

/**
 * A submitted RFC 822 message becomes /v3.0/send payloads, one per envelope recipient: the
 * documented route takes a single `to`, and the envelope (not the To/Cc headers) says who
 * must get the message, so To, Cc and Bcc recipients each get their own call. That uses no
 * assumed field for delivery itself, keeps Bcc recipients invisible, and lets each
 * recipient's outcome be reported. Text-only mail becomes escaped HTML; attachments,
 * Reply-To and the threading headers go in the optional fields of assumption A16.
 */

export interface Submission {
  /** Message-ID of the submission (the client's, or one generated here). */
  messageId: string;
  subject: string;
  payloads: SendRequest[];
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

export function textToHtml(text: string): string {
  return `<pre style="white-space: pre-wrap; font-family: inherit">${escapeHtml(text)}</pre>`;
}

function addresses(field: AddressObject | AddressObject[] | undefined): Array<{ name: string; address: string }> {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value).flatMap((v) => (v.address ? [{ name: v.name ?? '', address: v.address }] : []));
}

function threadingHeaders(mail: ParsedMail, messageId: string): Record<string, string> {
  const headers: Record<string, string> = { 'Message-ID': messageId };
  if (mail.inReplyTo) headers['In-Reply-To'] = mail.inReplyTo;
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  if (refs.length) headers.References = refs.join(' ');
  return headers;
}

/** `from` is the authenticated account; the From header only lends its display name. */
export async function buildSubmission(
  raw: Buffer,
  from: string,
  recipients: string[],
  assumptions: Assumptions,
): Promise<Submission> {
  // loaded on the first submission: a bridge used only for reading never holds the parser and its charset tables
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(raw, { skipTextToHtml: true });
  // generated when missing, so the client's Sent copy (IMAP APPEND) can still be matched
  const messageId = mail.messageId ?? `<${randomUUID()}@mailbridge.local>`;
  const fields = assumptions.send.optionalFields;
  const sender = addresses(mail.from).find((a) => a.address.toLowerCase() === from.toLowerCase());
  const html = typeof mail.html === 'string' && mail.html ? mail.html : textToHtml(mail.text ?? '');
  const replyTo = addresses(mail.replyTo)[0];
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
