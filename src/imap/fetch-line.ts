import compiler from '@mailbridge/imap-core/lib/handler/imap-compiler';
import { formatInternalDate } from '@mailbridge/imap-core/lib/imap-tools';
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

const lineItems = new Set(['uid', 'flags', 'modseq', 'internaldate', 'rfc822.size', 'envelope', 'bodystructure']);

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

/** Writes one item of a message; false when imap-core's path has to answer the message. */
type Part = (
  out: WireChunks,
  row: MessageRow,
  summary: SummaryBytes | undefined,
  recent: boolean,
  content: MessageBytes | undefined,
) => boolean;

/** Writes a message's items (between the parentheses of its response); false as for Part. */
export type LineItems = (
  out: WireChunks,
  row: MessageRow,
  summary: SummaryBytes | undefined,
  recent: boolean,
  content?: MessageBytes,
) => boolean;

/**
 * A FETCH's item writer: for each message the items of its response, or false when
 * imap-core's path has to answer it: an ENVELOPE/BODYSTRUCTURE without a summary, or
 * RFC822.SIZE 0 (not known yet), from which imap-core computes a size of its own. `recent`:
 * the session sees the message as \Recent (its FLAGS end with it).
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

  const parts = query.map((q): Part => {
    // the item as the client spelled it: imap-core echoes `original`
    const name = `${compiler({ attributes: [q.original] })} `;
    const whole = wholeContent(q);
    if (whole)
      return (out, _row, _summary, _recent, content) => {
        const literal = content?.(whole.textOnly);
        if (!literal) return false;
        out.text(name);
        out.text(`{${literal.length}}\r\n`);
        for (const bytes of literal.bytes) out.share(bytes);
        return true;
      };
    switch (q.item) {
      case 'uid':
        return (out, row) => {
          out.text(name);
          out.text(String(row.uid));
          return true;
        };
      case 'flags':
        return (out, row, _summary, recent) => {
          if (row.flags.some(isKeyword)) session.untagged.keywords(row.flags);
          out.text(name);
          flagList(out, row.flags, recent, atom);
          return true;
        };
      case 'modseq':
        return (out, row) => {
          out.text(name);
          out.text(row.modseq ? `(${row.modseq})` : '()');
          return true;
        };
      case 'internaldate':
        return (out, row) => {
          out.text(name);
          out.text(JSON.stringify(formatInternalDate(new Date(row.idate))));
          return true;
        };
      case 'rfc822.size':
        return (out, row) => {
          if (!row.size) return false;
          out.text(name);
          out.text(String(row.size));
          return true;
        };
      case 'envelope':
        return (out, _row, summary) => {
          if (!summary) return false;
          out.text(name);
          out.bytes(summary.envelope);
          return true;
        };
      case 'bodystructure':
        return (out, _row, summary) => {
          if (!summary) return false;
          out.text(name);
          out.bytes(summary.bodystructure);
          return true;
        };
      default:
        throw new Error(`FETCH ${q.item} is not answered as a line`);
    }
  });

  return (out, row, summary, recent, content) => {
    for (let i = 0; i < parts.length; i++) {
      if (i) out.text(' ');
      if (!parts[i](out, row, summary, recent, content)) return false;
    }
    return true;
  };
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
