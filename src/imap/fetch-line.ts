import compiler from '@mailbridge/imap-core/lib/handler/imap-compiler';
import { formatInternalDate } from '@mailbridge/imap-core/lib/imap-tools';
import { isObjectId } from '@mailbridge/imap-core/lib/object-ids';
import type { SummaryBytes } from '../mime';
import type { LiteralBytes } from '../mime/message-literal';
import type { MessageRow } from '../store';
import type { FetchQueryItem } from './fetch-query';
import type { Session } from './engine';
import type { WireChunks } from './wire-chunks';

declare module '@mailbridge/imap-core/lib/imap-tools' {
  /** INTERNALDATE text as imap-core's formatResponse writes it. */
  export function formatInternalDate(date: Date): string;
}

/**
 * The items of metadata FETCH responses written as text, byte for byte what imap-core's
 * formatResponse + compiler make of the same values (test/imap/fetch-line.test.ts), without
 * their costs per message: the compiler walks every token again. The session's writer
 * (UntaggedWriter.fetchLines) starts and ends each response; the items are written into its
 * chunks, ENVELOPE and BODYSTRUCTURE copied from their kept bytes (MessageCache.summaryBytes),
 * a whole message (BODY[], BODY[TEXT], RFC822, RFC822.TEXT) as the Buffers of its literal
 * (mime/message-literal.ts), shared, not copied (test/imap/body-literal.test.ts).
 */

const lineItems = new Set([
  'uid',
  'flags',
  'modseq',
  'internaldate',
  'rfc822.size',
  'envelope',
  'bodystructure',
  // imapflow asks for EMAILID whenever OBJECTID is offered
  'emailid',
  'threadid',
]);

/** A whole message's bytes, or (`textOnly`) its body's; null when imap-core's path has to serve them. */
export type MessageBytes = (textOnly: boolean) => LiteralBytes | null;

/** Whether the item is all of a message or all of its body (no part, no partial window); textOnly for the body. */
function wholeContent(q: FetchQueryItem): { textOnly: boolean } | null {
  if (q.partial) return null;
  if (q.item === 'rfc822') return { textOnly: false };
  if (q.item === 'rfc822.text') return { textOnly: true };
  if (q.item !== 'body' || q.path) return null;
  return q.type === 'content' ? { textOnly: false } : q.type === 'text' ? { textOnly: true } : null;
}

/** Whether every item of the query can be answered by `fetchLines`. */
export function isLineQuery(query: readonly FetchQueryItem[]): boolean {
  return query.every((q) => lineItems.has(q.item) || wholeContent(q));
}

/** Whether the query reads message content (then `fetchLines` needs the message's bytes). */
export function readsContent(query: readonly FetchQueryItem[]): boolean {
  return query.some((q) => wholeContent(q));
}

/** What a message's response is written from. */
export interface LineMessage {
  row: MessageRow;
  /** Its ENVELOPE and BODYSTRUCTURE bytes, when the query asks for them and they are known. */
  summary?: SummaryBytes;
  /** The session sees it as \Recent (its FLAGS end with it). */
  recent: boolean;
  content?: MessageBytes;
  /** Its OBJECTIDs (RFC 8474), when the query asks for them; a thread id null is NIL. */
  emailId?: string;
  threadId?: string | null;
}

/** Writes one item of a message; false when imap-core's path has to answer the message. */
type Part = (out: WireChunks, message: LineMessage) => boolean;

/** Writes a message's items (between the parentheses of its response); false as for Part. */
export type LineItems = Part;

/**
 * A FETCH's item writer: for each message the items of its response, or false when
 * imap-core's path has to answer it: an ENVELOPE/BODYSTRUCTURE without a summary, or
 * RFC822.SIZE 0 (not known yet), from which imap-core computes a size of its own.
 */
export function fetchLines(session: Session, query: readonly FetchQueryItem[]): LineItems {
  // quoting rules (and quirks) stay imap-core's: each distinct flag is compiled once
  const atoms = new Map<string, string>();
  const atom = (value: string) => {
    let text = atoms.get(value);
    if (text === undefined) {
      text = compiler({ attributes: [{ type: 'ATOM', value }] });
      atoms.set(value, text);
    }
    return text;
  };

  // keywords this FETCH had imap-core announce already: it looks at every keyword of every
  // message it is given, lowercasing each, which a FETCH of thousands of them paid for each
  const announced = new Set<string>();
  const unannounced = (flag: string) => isKeyword(flag) && !announced.has(flag);

  const parts = query.map((q): Part => {
    // the item as the client spelled it: imap-core echoes `original`
    const name = `${compiler({ attributes: [q.original] })} `;
    const whole = wholeContent(q);
    if (whole)
      return (out, { content }) => {
        const literal = content?.(whole.textOnly);
        if (!literal) return false;
        out.text(name);
        out.text(`{${literal.length}}\r\n`);
        for (const bytes of literal.bytes) out.share(bytes);
        return true;
      };
    switch (q.item) {
      case 'uid':
        return (out, { row }) => {
          out.text(name);
          out.text(String(row.uid));
          return true;
        };
      case 'flags':
        return (out, { row, recent }) => {
          if (row.flags.some(unannounced)) {
            session.untagged.keywords(row.flags);
            for (const flag of row.flags) if (isKeyword(flag)) announced.add(flag);
          }
          out.text(name);
          flagList(out, row.flags, recent, atom);
          return true;
        };
      case 'modseq':
        return (out, { row }) => {
          out.text(name);
          out.text(row.modseq ? `(${row.modseq})` : '()');
          return true;
        };
      case 'internaldate':
        return (out, { row }) => {
          out.text(name);
          out.text(JSON.stringify(formatInternalDate(new Date(row.idate))));
          return true;
        };
      case 'rfc822.size':
        return (out, { row }) => {
          if (!row.size) return false;
          out.text(name);
          out.text(String(row.size));
          return true;
        };
      case 'envelope':
        return (out, { summary }) => {
          if (!summary) return false;
          out.text(name);
          out.bytes(summary.envelope);
          return true;
        };
      case 'bodystructure':
        return (out, { summary }) => {
          if (!summary) return false;
          out.text(name);
          out.bytes(summary.bodystructure);
          return true;
        };
      case 'emailid':
      case 'threadid': {
        const field = q.item === 'emailid' ? 'emailId' : 'threadId';
        return (out, message) => {
          const id = message[field];
          if (id === undefined) return false;
          out.text(name);
          objectId(out, id);
          return true;
        };
      }
      default:
        throw new Error(`FETCH ${q.item} is not answered as a line`);
    }
  });

  return (out, message) => {
    for (let i = 0; i < parts.length; i++) {
      if (i) out.text(' ');
      if (!parts[i](out, message)) return false;
    }
    return true;
  };
}

/**
 * An OBJECTID as imap-core's objectIdValue + compiler write it: a one-atom list, NIL for none.
 * Its letters, digits, "_" and "-" need no quoting.
 */
function objectId(out: WireChunks, id: string | null): void {
  if (!isObjectId(id)) {
    out.text('NIL');
    return;
  }
  out.text('(');
  out.text(id);
  out.text(')');
}

/** A flag imap-core's announceKeywords looks at: not a system flag, not empty. */
function isKeyword(flag: string): boolean {
  return flag !== '' && flag[0] !== '\\';
}

/**
 * A message's flags (and \Recent last when `recent`) as imap-core's compiler joins their
 * compiled atoms: no space after "(", "<" or "[" (so `a[` and `b` become `(a[b)`), and an empty
 * flag is an empty atom.
 */
function flagList(out: WireChunks, flags: readonly string[], recent: boolean, atom: (flag: string) => string): void {
  let last = '(';
  out.text('(');
  const count = flags.length + (recent ? 1 : 0);
  for (let i = 0; i < count; i++) {
    const text = atom(i < flags.length ? flags[i] : '\\Recent');
    if (last !== '(' && last !== '<' && last !== '[') out.text(' ');
    out.text(text);
    if (text) last = text[text.length - 1];
  }
  out.text(')');
}
