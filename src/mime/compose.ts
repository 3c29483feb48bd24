import { hash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as base64 from 'nodemailer/lib/base64';
import * as qp from 'nodemailer/lib/qp';
import { buildHeaderValue, parseHeaderValue } from 'nodemailer/lib/mime-funcs';
import type { Composition, MailAddress, MailAttachment, MailMessage } from '../domain/message';
import { kept, mapped } from '../util/lists';

/**
 * MailMessage -> RFC 822 message, deterministically: boundaries come from a hash of the
 * message's id, Date from its arrival time, Message-ID from its messageId, so the same message
 * gives the same bytes in every process. Headers are only what the vendor says about the
 * message (no X-Mailbridge-* bookkeeping).
 *
 * nodemailer's MailComposer lays out the tree (alternative/related/mixed, header encoding);
 * the tree is then serialized synchronously here with nodemailer's own encoders, because the
 * callers describe messages inside synchronous store updates. Output equals MimeNode.build().
 */

export interface ComposedMessage {
  root: MimeNode;
  /** MIME nodes of the vendor attachments, for mapping the parsed tree back to attachments. */
  attachmentNodes: Map<MimeNode, MailAttachment>;
}

function stableId(messageUid: string): string {
  return hash('sha256', messageUid, 'hex');
}

/** Header values travel as given by the vendor; a CR/LF in them must not start a new header. */
function oneLine(value: string): string {
  return value.replace(/[\r\n\t\x00-\x1f\x7f]+/g, ' ').trim();
}

/** Served messages have CRLF line ends (the indexer normalizes anyway); doing it first keeps sizes exact. */
function crlf(value: string | undefined): string | undefined {
  return value ? value.replace(/\r\n|\r|\n/g, '\r\n') : undefined;
}

function address(r: MailAddress): Mail.Address | string {
  return r.name ? { name: oneLine(r.name), address: oneLine(r.address) } : oneLine(r.address);
}

function validDate(iso: string): Date {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

function contentType(mime: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(mime ?? '') ? mime.toLowerCase() : 'application/octet-stream';
}

/** The header fields a composition adds (version 2), in the order they are written. */
function compositionHeaders(c: Composition, listUnsubscribe: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const listId = c.headers['list-id']?.[0];
  if (listId) headers['List-Id'] = oneLine(listId);
  if (listUnsubscribe) headers['List-Unsubscribe'] = listUnsubscribe;
  const a = c.authentication;
  // RFC 8601: authserv-id, then one resinfo per method
  if (a) headers['Authentication-Results'] = `${a.authservId}; spf=${a.spf}; dkim=${a.dkim}; dmarc=${a.dmarc}`;
  if (c.spam) {
    headers['X-Spam-Score'] = String(c.spam.score);
    if (c.spam.flagged) headers['X-Spam-Flag'] = 'YES';
  }
  return headers;
}

/**
 * nodemailer writes a non-ASCII file name into Content-Type as `name="=?UTF-8?Q?...?="`, an
 * encoded word inside a quoted string, which RFC 2047 (5) forbids and strict parsers flag. The
 * name goes as an RFC 2231 parameter instead, like the filename of Content-Disposition: the
 * prepared Content-Type value a composition (version 2) gives such a part, or null.
 */
export function rfc2231ContentType(contentType: unknown, filename: string | undefined): PreparedHeader | null {
  if (!filename || !/[^\x20-\x7e]/.test(filename)) return null;
  const type = parseHeaderValue(String(contentType ?? 'application/octet-stream')).value;
  return { prepared: true, foldLines: true, value: buildHeaderValue({ value: type, params: { name: filename } }) };
}

/** A header value MimeNode writes as given (folded when asked). */
export interface PreparedHeader {
  prepared: true;
  foldLines: true;
  value: string;
}

function rfc2231Name(node: MimeNode): void {
  const prepared = rfc2231ContentType(
    node.getHeader('Content-Type'),
    (node as MimeNode & { filename?: string }).filename,
  );
  if (prepared) node.setHeader('Content-Type', prepared);
}

/** An original header field's values as one line, or undefined without any. */
function joinedOriginal(values: readonly string[] | undefined): string | undefined {
  let out = '';
  if (values) for (let i = 0; i < values.length; i++) out += i ? `, ${oneLine(values[i])}` : oneLine(values[i]);
  return out || undefined;
}

/** RFC 5322 date text from the original header when it is one, else the arrival time. */
function originalDate(c: Composition | undefined, receivedAt: string): Date | string {
  const original = c?.headers.date?.[0];
  return original && !Number.isNaN(Date.parse(original)) ? oneLine(original) : validDate(receivedAt);
}

/**
 * message/* bodies cannot be encoded (RFC 2046 5.2.1; RFC 3464 and 5965 want 7bit reports):
 * the bytes go as they are, with CRLF line ends, labelled by what they hold.
 */
function messagePart(base64: string): { content: Buffer; contentTransferEncoding: string } {
  const content = Buffer.from(
    Buffer.from(base64, 'base64')
      .toString('latin1')
      .replace(/\r\n|\r|\n/g, '\r\n'),
    'latin1',
  );
  const text = content.toString('latin1');
  const longLine = text.split('\r\n').some((line) => line.length > 998);
  const contentTransferEncoding =
    longLine || text.includes('\0') ? 'binary' : /[^\x00-\x7f]/.test(text) ? '8bit' : '7bit';
  return { content, contentTransferEncoding };
}

/**
 * Bcc: included whenever the vendor lists Bcc recipients. The vendor can only know them for
 * mail this mailbox sent (a recipient's copy never carries Bcc), and mail clients show Bcc on
 * sent messages, so hiding them would lose information the user already has.
 *
 * A message with a `composition` (version 2) also gets the original header fields the vendor
 * keeps (Reply-To, List-Id, Date, In-Reply-To, References, Cc), Authentication-Results, the
 * spam score, and its message/* attachments inline as 7bit/8bit. One without keeps the first
 * form (version 1): a message already served never changes bytes.
 */
export function composeOptions(msg: MailMessage, content: (att: MailAttachment) => Buffer): ComposeOptions {
  const c = msg.composition;
  const original = (name: string) => joinedOriginal(c?.headers[name]);
  const attachments = msg.attachments ?? [];
  const attachmentContents = new Map<Buffer, MailAttachment>();
  const text = crlf(msg.body?.text);
  const html = crlf(msg.body?.html);
  const references = mapped(
    kept(msg.references, (r) => r.trim() !== ''),
    oneLine,
  );
  const originalReferences = original('references');
  const listUnsubscribe = typeof msg.listUnsubscribe === 'string' ? oneLine(msg.listUnsubscribe) : '';
  const headers = c
    ? compositionHeaders(c, listUnsubscribe)
    : listUnsubscribe
      ? { 'List-Unsubscribe': listUnsubscribe }
      : {};
  const options: Mail.Options & { baseBoundary: string } = {
    baseBoundary: stableId(msg.id).slice(0, 24),
    from: msg.from ? { name: oneLine(msg.from.name ?? ''), address: oneLine(msg.from.address) } : undefined,
    to: mapped(msg.to, address),
    cc: original('cc') ?? mapped(msg.cc, address),
    bcc: mapped(msg.bcc, address),
    replyTo: original('reply-to'),
    subject: oneLine(msg.subject),
    date: c ? originalDate(c, msg.receivedAt) : validDate(msg.receivedAt),
    messageId: oneLine(msg.messageId) || `<${stableId(msg.id).slice(0, 32)}@mailbridge.invalid>`,
    inReplyTo: original('in-reply-to') ?? references.at(-1),
    references: originalReferences ?? (references.length ? references : undefined),
    text,
    html,
    // attachments never sit at the root: a body-less message gets an empty text part first
    alternatives:
      !text && !html && attachments.length ? [{ contentType: 'text/plain; charset=utf-8', content: '' }] : undefined,
    headers: Object.keys(headers).length ? headers : undefined,
    attachments: mapped(attachments, (att) => {
      const type = contentType(att.contentType);
      const messageBytes = c && type.startsWith('message/') ? c.messageParts[att.id] : undefined;
      // a report part whose bytes could not be had is offered as the file it is
      const part =
        messageBytes !== undefined
          ? messagePart(messageBytes)
          : {
              content: content(att),
              // base64 for every other type: sizes then follow from the declared size alone
              contentTransferEncoding: 'base64',
            };
      if (messageBytes === undefined) attachmentContents.set(part.content, att);
      // one literal for every attachment: one object shape for V8 (see mime-layout.ts's node())
      return {
        filename: oneLine(att.filename || 'attachment'),
        contentDisposition: att.inline ? ('inline' as const) : ('attachment' as const),
        cid: att.contentId ? oneLine(att.contentId).replace(/[<>]/g, '') : undefined,
        contentType: c && type.startsWith('message/') && messageBytes === undefined ? 'application/octet-stream' : type,
        contentTransferEncoding: part.contentTransferEncoding,
        content: part.content,
      };
    }),
  };
  return { options, attachmentContents, composition: !!c };
}

/** What MailComposer is given for a message, and which content Buffer is which vendor attachment. */
export interface ComposeOptions {
  options: Mail.Options & { baseBoundary: string };
  attachmentContents: Map<Buffer, MailAttachment>;
  /** A composition (version 2): non-ASCII file names go as RFC 2231 parameters (rfc2231ContentType). */
  composition: boolean;
}

export function composeMessage(msg: MailMessage, content: (att: MailAttachment) => Buffer): ComposedMessage {
  const { options, attachmentContents, composition } = composeOptions(msg, content);
  const root = new MailComposer(options).compile();
  root.keepBcc = true;
  const attachmentNodes = new Map<MimeNode, MailAttachment>();
  const walk = (node: MimeNode): void => {
    const att = Buffer.isBuffer(node.content) ? attachmentContents.get(node.content) : undefined;
    if (att) attachmentNodes.set(node, att);
    if (composition) rfc2231Name(node);
    node.childNodes.forEach(walk);
  };
  walk(root);
  return { root, attachmentNodes };
}

export function encodeContent(node: MimeNode, transferEncoding: string): Buffer {
  return encodeBody(node.content, transferEncoding);
}

/** A part's content in its Content-Transfer-Encoding, as MimeNode writes it. */
export function encodeBody(content: MimeNode['content'], transferEncoding: string): Buffer {
  if (!content) return Buffer.alloc(0);
  if (typeof content !== 'string' && !Buffer.isBuffer(content)) throw new Error('stream content is not supported');
  if (transferEncoding === 'base64') return Buffer.from(base64.wrap(base64.encode(content), 76), 'latin1');
  if (transferEncoding === 'quoted-printable') return Buffer.from(qp.wrap(qp.encode(content), 76), 'latin1');
  return Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
}

/** MimeNode tree -> bytes, the same layout MimeNode.stream() writes, synchronously. */
export function serializeMimeNode(root: MimeNode): Buffer {
  const out: Buffer[] = [];
  const write = (node: MimeNode): void => {
    const transferEncoding = node.getTransferEncoding();
    out.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`, 'utf8'));
    out.push(encodeContent(node, transferEncoding as string));
    if (!node.multipart) return;
    node.childNodes.forEach((child, i) => {
      out.push(Buffer.from(`${i ? '\r\n' : ''}--${node.boundary}\r\n`, 'latin1'));
      write(child);
    });
    out.push(Buffer.from(`\r\n--${node.boundary}--\r\n`, 'latin1'));
  };
  write(root);
  const last = out
    .filter((b) => b.length)
    .at(-1)
    ?.at(-1);
  if (last !== 0x0a) out.push(Buffer.from(last === 0x0d ? '\n' : '\r\n', 'latin1'));
  return Buffer.concat(out);
}

/** The full message with real attachment bytes (missing ones empty). */
export function buildMessage(msg: MailMessage, attachmentBytes: ReadonlyMap<string, Buffer>): Buffer {
  return serializeMimeNode(
    composeMessage(msg, (att) => Buffer.from(attachmentBytes.get(att.id) ?? Buffer.alloc(0))).root,
  );
}
