import MimeNode from 'nodemailer/lib/mime-node';
import {
  buildHeaderValue,
  encodeWord,
  foldLines,
  parseHeaderValue,
  isPlainText,
  hasLongerLines,
} from 'nodemailer/lib/mime-funcs';
import type { HeaderField, LaidOutPart } from './mime-layout';
import { getHeader, setHeader } from './mime-layout';
import { Memo } from '../util/memo';

/**
 * A laid-out part's header block (mime-layout.ts) written as MimeNode.buildHeaders() writes
 * its node's: the transfer encoding chosen the same way, the root's MIME-Version, Content-Type
 * last on the root, every value encoded by nodemailer's own MimeNode.encodeHeaderValue and
 * folded at 76. Also the part's boundary and transfer encoding, for its body.
 */

/** nodemailer's header value encoder (its public method), on one node that is never written. */
const encoder = new MimeNode(false as unknown as string, { baseBoundary: 'encoder' });

/**
 * Writing a header field is the costliest part of describing, and most fields repeat from
 * message to message: a mailbox's correspondents (address parsing, punycode, encoded words),
 * the parts' own fields (Content-Type, Content-Transfer-Encoding, ...) and the root's
 * bookkeeping (Authentication-Results, X-Spam-Score, List-Id). A written field depends on its
 * key and value alone (the encoder's settings are fixed), so fields are remembered by key and
 * value for values made of strings only (what compose.ts gives: addresses as strings or
 * {name, address}), except those of keys whose values are the message's own (remembering them
 * would only fill the table); a full table starts over.
 */
const ownKeys = new Set([
  'Subject',
  'Date',
  'Message-ID',
  'In-Reply-To',
  'References',
  'Content-ID',
  // a newsletter's unsubscribe links name the recipient's copy
  'List-Unsubscribe',
]);
const writtenFields = new Memo<string, string>(10_000);

function stringsOnly(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (Array.isArray(value)) return value.every(stringsOnly);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(stringsOnly);
}

/** Keys MimeNode.encodeHeaderValue gives a value of their own form (addresses, ids, parameters). */
const structuredKeys = new Set([
  'From',
  'Sender',
  'To',
  'Cc',
  'Bcc',
  'Reply-To',
  'Message-ID',
  'In-Reply-To',
  'Content-ID',
  'OTP-Token',
  'References',
  'Content-Type',
  'Content-Disposition',
]);

/**
 * A line encodeHeaderValue leaves as it is and foldLines does not fold: a string of printable
 * ASCII without quotes or encoded-word openers (those are what encodeWords encodes), written
 * on fewer than 76 characters; a message id that way already holds its angle brackets. Most of
 * the fields that are the message's own are such, so they skip the encoder; null otherwise.
 */
function unchangedLine(key: string, value: unknown): string | null {
  if (typeof value !== 'string' || !/^[\x20\x21\x23-\x7e]*$/.test(value) || value.includes('=?')) return null;
  const line = `${key}: ${value}`;
  if (line.length >= 76 || !value.trim()) return null;
  if (!structuredKeys.has(key)) return line;
  return (key === 'Message-ID' || key === 'In-Reply-To') && value.startsWith('<') && value.endsWith('>') ? line : null;
}

/** MimeNode.buildHeaders' line of one field: encoded, folded at 76; '' when it writes none. */
function writeField(key: string, value: unknown): string {
  const unchanged = unchangedLine(key, value);
  if (unchanged !== null) return unchanged;
  const encoded = encoder.encodeHeaderValue(key, value as Parameters<MimeNode['encodeHeaderValue']>[1]);
  return (encoded || '').toString().trim() ? foldLines(`${key}: ${encoded}`, 76) : '';
}

function rememberedField(key: string, value: unknown): string {
  if (ownKeys.has(key) || !stringsOnly(value)) return writeField(key, value);
  // a field name holds no colon
  const id = `${key}:${typeof value === 'string' ? value : JSON.stringify(value)}`;
  return writtenFields.get(id) ?? writtenFields.set(id, writeField(key, value));
}

/** Address fields keep their structured values (MimeNode's FORMATTED_HEADERS). */
const formatted = new Set(['From', 'Sender', 'To', 'Cc', 'Bcc', 'Reply-To', 'Date', 'References']);

/** MimeNode._getTextEncoding: Q when Latin letters outnumber the rest that needs encoding, else B. */
function textEncoding(value: string): 'Q' | 'B' {
  let nonLatin = 0;
  let latin = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f) || code >= 0x80) nonLatin++;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
  }
  return nonLatin < latin ? 'Q' : 'B';
}

/** MimeNode.getTransferEncoding for a leaf's content; false where no field is written. */
export function transferEncoding(part: LaidOutPart): string | false {
  const content = part.content;
  if (!content) return false;
  const contentType = String(getHeader(part.headers, 'Content-Type') ?? '')
    .toLowerCase()
    .trim();
  let encoding = String(getHeader(part.headers, 'Content-Transfer-Encoding') ?? '')
    .toLowerCase()
    .trim();
  if (encoding === 'base64' || encoding === 'quoted-printable') return encoding;
  if (/^text\//i.test(contentType)) {
    // MimeNode.setContent: a plain-text string with short lines goes as it is
    if (typeof content === 'string' && isPlainText(content) && !hasLongerLines(content, 76)) return '7bit';
    return textEncoding(content.toString()) === 'Q' ? 'quoted-printable' : 'base64';
  }
  if (!/^(multipart|message)\//i.test(contentType)) encoding ||= 'base64';
  return encoding || false;
}

export interface WrittenHeader {
  /** The header block's fields, each folded (CRLF inside), without the closing blank line. */
  fields: string[];
  /** A multipart's boundary, else false. */
  boundary: string | false;
  transferEncoding: string | false;
}

/**
 * A leaf's Content-Type value depends on the type given, the file name and whether a text/plain
 * string body holds non-ASCII (charset): remembered by those, as the leaves' types repeat.
 */
const leafTypes = new Memo<string, { value: string; multipart: boolean }>(10_000);

function leafContentType(part: LaidOutPart, value: string, boundary: string): { value: string; multipart: boolean } {
  const content = part.content;
  const nonAscii = /text\/plain/i.test(value) && typeof content === 'string' && /[\u0080-\uFFFF]/.test(content);
  const id = `${value}\u0000${part.filename ?? ''}\u0000${nonAscii}`;
  let known = leafTypes.get(id);
  if (known === undefined) {
    known = contentTypeValue(part, value, boundary);
    // a multipart's value holds its boundary, which is the message's own
    if (known.multipart) return known;
    leafTypes.set(id, known);
  }
  return known;
}

function contentTypeValue(part: LaidOutPart, value: string, boundary: string): { value: string; multipart: boolean } {
  const structured = parseHeaderValue(value, { stripComments: true });
  structured.value = (structured.value || '').toString().replace(/[\x00-\x1f\x7f]/g, '');
  const multipart = /^multipart\//i.test(structured.value.trim());
  // MimeNode._handleContentType: a multipart gets its boundary; it never declares one of its own here
  if (multipart) structured.params.boundary = boundary;
  const content = part.content;
  if (/^text\/plain\b/.test(structured.value) && typeof content === 'string' && /[\u0080-\uFFFF]/.test(content))
    structured.params.charset = 'utf-8';
  if (!part.filename) return { value: buildHeaderValue(structured), multipart };
  for (const key of Object.keys(structured.params)) if (/^name(\*|$)/i.test(key)) delete structured.params[key];
  const filename = part.filename;
  let param = /[\x00-\x1f\x7f]/.test(filename)
    ? encodeWord(filename, textEncoding(filename), 52)
    : // an unstructured value with no control character: MimeNode._encodeWords(filename)
      encoder.encodeHeaderValue('Subject', filename);
  if (param !== filename || /[\s'"\\;:/=(),<>@[\]?]|^-/.test(param)) param = JSON.stringify(param);
  return { value: `${buildHeaderValue(structured)}; name=${param}`, multipart };
}

/** MimeNode.buildHeaders() of the part; `baseBoundary` is the root's (compose.ts's stable id). */
export function writeHeader(part: LaidOutPart, baseBoundary: string): WrittenHeader {
  const headers: HeaderField[] = part.headers.slice();
  const encoding = transferEncoding(part);
  if (encoding) setHeader(headers, 'Content-Transfer-Encoding', encoding);
  if (part.filename && !getHeader(headers, 'Content-Disposition'))
    setHeader(headers, 'Content-Disposition', 'attachment');
  if (part.root) {
    if (!getHeader(headers, 'MIME-Version')) setHeader(headers, 'MIME-Version', '1.0');
    const type = headers.findIndex((h) => h.key === 'Content-Type');
    if (type >= 0 && type < headers.length - 1) headers.push(...headers.splice(type, 1));
  }
  let boundary: string | false = false;
  const lines: string[] = [];
  for (const header of headers) {
    const key = header.key;
    let value = header.value;
    if (value && typeof value === 'object' && !formatted.has(key)) {
      const prepared = value as { value?: unknown; prepared?: boolean; foldLines?: boolean };
      value = String(prepared.value ?? '');
      if (!(value as string).trim()) continue;
      if (prepared.prepared) {
        lines.push(prepared.foldLines ? foldLines(`${key}: ${value}`) : `${key}: ${value}`);
        continue;
      }
    }
    if (key === 'Content-Disposition') {
      const structured = parseHeaderValue(value as string, { stripComments: true });
      if (part.filename) structured.params.filename = part.filename;
      value = buildHeaderValue(structured);
    } else if (key === 'Content-Type') {
      const written = part.children.length
        ? contentTypeValue(part, value as string, `--_NmP-${baseBoundary}-Part_${part.id}`)
        : leafContentType(part, value as string, `--_NmP-${baseBoundary}-Part_${part.id}`);
      value = written.value;
      if (written.multipart) boundary = `--_NmP-${baseBoundary}-Part_${part.id}`;
    }
    // compose.ts keeps Bcc (keepBcc)
    const line = rememberedField(key, value);
    if (line) lines.push(line);
  }
  return { fields: lines, boundary, transferEncoding: encoding };
}
