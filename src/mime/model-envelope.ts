import createEnvelope from '@mailbridge/imap-core/lib/indexer/create-envelope';
import { addressSource } from './header-fields';
import { Memo } from '../util/memo';

/**
 * ENVELOPE of a header block header-fields.ts parsed, as the indexer's getEnvelope makes it
 * (imap-core's create-envelope.js), with each address list remembered by the field value it
 * was read from: decoding names and punycode domains was most of ENVELOPE, and a mailbox's
 * correspondents repeat. The lists are shared between messages, so nothing may change them
 * (compiled-summary.ts only reads, and copies what it encodes).
 */

const lists = new Memo<string, unknown[] | null>(10_000);

/** create-envelope's processAddress of a parsed address list: null when it holds none. */
function addressList(parsed: unknown): unknown[] | null {
  if (!Array.isArray(parsed) || !parsed.length) return null;
  const value = addressSource(parsed);
  const made = () => createEnvelope({ from: parsed })[2] as unknown[] | null;
  if (value === undefined) return made();
  let list = lists.get(value);
  if (list === undefined) {
    list = made();
    lists.set(value, list);
  }
  return list;
}

const unstructured = ['date', 'subject', 'in-reply-to', 'message-id'];

/**
 * create-envelope's subject of one Subject field that is ASCII without an encoded word (or the
 * NUL of libmime's join marker): decoding leaves it as it is, so it is only trimmed. null for
 * any other, which create-envelope decodes.
 */
function plainSubject(subject: unknown): Buffer | null {
  return typeof subject === 'string' && /^[\x01-\x7f]*$/.test(subject) && !subject.includes('=?')
    ? Buffer.from(subject.trim())
    : null;
}

export function modelEnvelope(parsedHeader: Record<string, unknown>): unknown[] {
  const subject = plainSubject(parsedHeader.subject);
  const rest: Record<string, unknown> = {};
  for (const key of unstructured)
    if (parsedHeader[key] !== undefined && !(subject && key === 'subject')) rest[key] = parsedHeader[key];
  const envelope = createEnvelope(rest);
  if (subject) envelope[1] = subject;
  const from = addressList(parsedHeader.from);
  // Sender and Reply-To default to From (RFC 3501 7.4.2)
  envelope[2] = from;
  envelope[3] = addressList(parsedHeader.sender) ?? from;
  envelope[4] = addressList(parsedHeader['reply-to']) ?? from;
  envelope[5] = addressList(parsedHeader.to);
  envelope[6] = addressList(parsedHeader.cc);
  envelope[7] = addressList(parsedHeader.bcc);
  return envelope;
}
