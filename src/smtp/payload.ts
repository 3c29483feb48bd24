import { randomUUID } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { MailboxSend } from '../upstream/api';
import type { Assumptions } from '../upstream/assumptions';
import type { SendRequest } from '../upstream/types';
import { utf8Headers } from './header-charset';
import { accountId } from '../model/account-id';

/**
 * A submitted RFC 822 message becomes what the vendor is asked to send, in both forms the
 * submission.recipients setting chooses between:
 * - /v3.0/send payloads, one per envelope recipient: the documented route takes a single `to`,
 *   and the envelope (not the To/Cc headers) says who must get the message, so To, Cc and Bcc
 *   recipients each get their own call, and each recipient's outcome can be reported. The To
 *   and Cc headers ride along in the `headers` field (A26), so every copy shows them; a Bcc
 *   recipient is in no header. Text-only mail becomes escaped HTML; attachments, Reply-To and
 *   the threading headers go in the optional fields of assumption A16.
 * - one message for the mailbox's send command (A8): to/cc/bcc lists from the headers, with
 *   envelope recipients that no header names added as Bcc; not made when a header names
 *   someone the envelope leaves out (the payloads are used then).
 */

export interface Submission {
  /** The message as the client submitted it. */
  raw: Buffer;
  /** Message-ID of the submission (the client's, or one generated here). */
  messageId: string;
  subject: string;
  payloads: SendRequest[];
  /**
   * The same message for the send command (A8); null when a To/Cc address is not an envelope
   * recipient, which the command cannot express (it delivers to everyone it shows).
   */
  message: MailboxSend | null;
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
export async function buildSubmission(
  raw: Buffer,
  from: string,
  recipients: string[],
  assumptions: Assumptions,
): Promise<Submission> {
  // loaded on the first submission: a bridge used only for reading never holds the parser and its charset tables
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(utf8Headers(raw), { skipTextToHtml: true });
  // generated when missing, so the client's Sent copy (IMAP APPEND) can still be matched
  const messageId = mail.messageId ?? `<${randomUUID()}@mailbridge.local>`;
  const fields = assumptions.send.optionalFields;
  const sender = addresses(mail.from).find((a) => accountId(a.address) === accountId(from));
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
    [fields.headers]: { ...shownRecipients(mail), ...threadingHeaders(mail, messageId) },
    ...(attachments.length ? { [fields.attachments]: attachments } : {}),
  };
  const recipient = (a: { name: string; address: string }) =>
    a.name ? { email: a.address, name: a.name } : { email: a.address };
  const to = addresses(mail.to).map(recipient);
  const cc = addresses(mail.cc).map(recipient);
  const named = new Set([...to, ...cc].map((r) => r.email.toLowerCase()));
  const envelope = new Set(recipients.map((r) => r.toLowerCase()));
  const message: MailboxSend | null = ![...named].every((a) => envelope.has(a))
    ? null
    : {
        messageId,
        to,
        cc,
        bcc: recipients.filter((r) => !named.has(r.toLowerCase())).map((email) => ({ email })),
        subject,
        html,
        ...(mail.text ? { text: mail.text } : {}),
        ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
        ...(referencesOf(mail).length ? { references: referencesOf(mail) } : {}),
        ...(replyTo ? { replyTo: replyTo.address } : {}),
        ...(attachments.length ? { attachments } : {}),
      };
  return { raw, messageId, subject, payloads: recipients.map((to) => ({ ...base, to })), message };
}
