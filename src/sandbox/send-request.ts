import addressparser from 'nodemailer/lib/addressparser';
import type { Recipient } from '../upstream/types';
import type { WireFormat } from './wire-format';
import { ArgError, isEmail, optString, parseAddressList, reqString } from './args';
import { bodyPair } from './body-format';
import { isObject } from './http';
import type { IncomingFile, Outgoing } from './store';

/**
 * Validation of POST /v3.0/send (documented fields plus the optional ones of A16).
 * Throws ArgError, which the route answers as A17 (400 VALIDATION_ERROR).
 */
export function parseSendRequest(body: unknown, a: WireFormat): Outgoing {
  if (!isObject(body)) throw new ArgError('body must be a JSON object');
  const f = a.send.optionalFields;
  const to = reqString(body, 'to');
  const from = reqString(body, 'from');
  if (!isEmail(to)) throw new ArgError('to must be one email address');
  if (!isEmail(from)) throw new ArgError('from must be an email address');
  const subject = optString(body, 'subject');
  if (subject === undefined) throw new ArgError('subject is required');
  const html = optString(body, 'body');
  const text = optString(body, f.text);
  if (html === undefined && text === undefined) throw new ArgError('body is required');
  const replyTo = optString(body, f.replyTo);
  if (replyTo !== undefined && !isEmail(replyTo)) throw new ArgError(`${f.replyTo} must be an email address`);
  const headers = headersField(body[f.headers], f.headers);
  const header = (name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const references = header('references')?.match(/<[^>]+>/g) ?? undefined;
  // A26: To and Cc in `headers` are what the delivered message shows; `to` alone is delivered to
  const shownTo = header('to');
  const shownCc = header('cc');
  return {
    fromName: optString(body, 'senderName') ?? '',
    fromEmail: from,
    to: shownTo === undefined ? [{ email: to }] : shownAddresses(shownTo),
    ...(shownTo === undefined && shownCc === undefined ? {} : { deliverTo: [to] }),
    cc: shownCc === undefined ? parseAddressList(optString(body, 'cc') ?? '') : shownAddresses(shownCc),
    bcc: parseAddressList(optString(body, 'bcc') ?? ''),
    subject,
    ...bodyPair(html, text),
    files: filesField(body[f.attachments], f.attachments),
    messageId: header('message-id'),
    inReplyTo: header('in-reply-to') ?? null,
    references,
    replyTo,
  };
}

/** A header's mailboxes as shown, not checked: delivery goes only to the validated `to`. */
function shownAddresses(value: string): Recipient[] {
  return addressparser(value, { flatten: true }).flatMap((a) =>
    a.address ? [a.name ? { email: a.address, name: a.name } : { email: a.address }] : [],
  );
}

function headersField(v: unknown, name: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !Object.values(v).every((h) => typeof h === 'string'))
    throw new ArgError(`${name} must be an object of strings`);
  return v as Record<string, string>;
}

export function filesField(v: unknown, name: string): IncomingFile[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ArgError(`${name} must be an array`);
  return v.map((item, i) => {
    if (!isObject(item)) throw new ArgError(`${name}[${i}] must be an object`);
    const content = optString(item, 'content') ?? '';
    if (!/^[A-Za-z0-9+/=\s]*$/.test(content)) throw new ArgError(`${name}[${i}].content must be base64`);
    const contentId = optString(item, 'contentId');
    return {
      filename: reqString(item, 'filename'),
      contentType: optString(item, 'contentType') ?? 'application/octet-stream',
      data: Buffer.from(content, 'base64'),
      contentId: contentId ? contentId.replace(/^<|>$/g, '') : null,
    };
  });
}
