import { randomUUID } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { MailAddress } from '../domain/message';
import type { OutgoingCopy, OutgoingMessage } from '../domain/submission';
import { utf8Headers } from './header-charset';
import { accountId } from '../model/account-id';

/**
 * A submitted RFC 822 message becomes what the vendor is asked to send (domain/submission.ts),
 * in both forms the submission.recipients setting chooses between:
 * - one copy per envelope recipient: the vendor's send route takes a single `to`, and the
 *   envelope (not the To/Cc headers) says who must get the message, so To, Cc and Bcc
 *   recipients each get their own copy, and each recipient's outcome can be reported. Every
 *   copy carries the To and Cc headers (A26), so it shows them; a Bcc recipient is in no
 *   header. Text-only mail becomes escaped HTML; attachments, Reply-To and the threading
 *   headers go along (A16).
 * - one message for the mailbox's send command (A8): to/cc/bcc lists from the headers, with
 *   envelope recipients that no header names added as Bcc; not made when a header names
 *   someone the envelope leaves out (the copies are used then).
 */

export interface Submission {
  /** The message as the client submitted it. */
  raw: Buffer;
  /** Message-ID of the submission (the client's, or one generated here). */
  messageId: string;
  subject: string;
  copies: OutgoingCopy[];
  /**
   * The same message for the send command (A8); null when a To/Cc address is not an envelope
   * recipient, which the command cannot express (it delivers to everyone it shows).
   */
  message: OutgoingMessage | null;
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
  const refs = referencesOf(mail);
  if (refs.length) headers.References = refs.join(' ');
  return headers;
}

function referencesOf(mail: ParsedMail): string[] {
  return Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
}

/** A mailbox as header text: the display name quoted, so commas and quotes in it stay inside. */
function mailboxText(a: { name: string; address: string }): string {
  return a.name ? `"${a.name.replace(/["\\]/g, '\\$&')}" <${a.address}>` : a.address;
}

/** The To and Cc headers (decoded): what every copy shows (A26). */
function shownRecipients(mail: ParsedMail): Record<string, string> {
  const shown: Record<string, string> = {};
  const to = addresses(mail.to).map(mailboxText).join(', ');
  const cc = addresses(mail.cc).map(mailboxText).join(', ');
  if (to) shown.To = to;
  if (cc) shown.Cc = cc;
  return shown;
}

/** `from` is the authenticated account; the From header only lends its display name. */
export async function buildSubmission(raw: Buffer, from: string, recipients: string[]): Promise<Submission> {
  // loaded on the first submission: a bridge used only for reading never holds the parser and its charset tables
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(utf8Headers(raw), { skipTextToHtml: true });
  // generated when missing, so the client's Sent copy (IMAP APPEND) can still be matched
  const messageId = mail.messageId ?? `<${randomUUID()}@mailbridge.local>`;
  const sender = addresses(mail.from).find((a) => accountId(a.address) === accountId(from));
  const html = typeof mail.html === 'string' && mail.html ? mail.html : textToHtml(mail.text ?? '');
  const replyTo = addresses(mail.replyTo)[0];
  const attachments = mail.attachments.map((a) => ({
    filename: a.filename ?? 'attachment',
    content: a.content,
    contentType: a.contentType,
    ...(a.contentId ? { contentId: a.contentId.replace(/^<|>$/g, '') } : {}),
  }));
  const subject = mail.subject ?? '';
  const shared = {
    subject,
    html,
    ...(mail.text ? { text: mail.text } : {}),
    ...(replyTo ? { replyTo: replyTo.address } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
  const copy = {
    ...shared,
    ...(sender?.name ? { senderName: sender.name } : {}),
    headers: { ...shownRecipients(mail), ...threadingHeaders(mail, messageId) },
  };
  const recipient = (a: { name: string; address: string }): MailAddress =>
    a.name ? { address: a.address, name: a.name } : { address: a.address };
  const to = addresses(mail.to).map(recipient);
  const cc = addresses(mail.cc).map(recipient);
  const named = new Set([...to, ...cc].map((r) => r.address.toLowerCase()));
  const envelope = new Set(recipients.map((r) => r.toLowerCase()));
  const message: OutgoingMessage | null = ![...named].every((a) => envelope.has(a))
    ? null
    : {
        ...shared,
        messageId,
        to,
        cc,
        bcc: recipients.filter((r) => !named.has(r.toLowerCase())).map((address) => ({ address })),
        ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
        ...(referencesOf(mail).length ? { references: referencesOf(mail) } : {}),
      };
  return { raw, messageId, subject, copies: recipients.map((to) => ({ ...copy, to })), message };
}
