import compiler from '@mailbridge/imap-core/lib/handler/imap-compiler';
import { formatInternalDate } from '@mailbridge/imap-core/lib/imap-tools';
import { compiledToken } from '../mime';
import type { MessageRow, MessageSummary } from '../store';
import type { FetchQueryItem } from './fetch-query';
import type { Session } from './engine';

declare module '@mailbridge/imap-core/lib/imap-tools' {
  /** INTERNALDATE text as imap-core's formatResponse writes it. */
  export function formatInternalDate(date: Date): string;
}

/**
 * The items of metadata FETCH responses written as text, byte for byte what imap-core's
 * formatResponse + compiler make of the same values (test/imap/fetch-line.test.ts), without
 * their costs per message: the compiler walks every token again. The session's writer
 * (UntaggedWriter.fetchLines) adds the sequence number.
 */

const lineItems = new Set(['uid', 'flags', 'modseq', 'internaldate', 'rfc822.size', 'envelope', 'bodystructure']);

/** Whether every item of the query can be answered by `fetchLines`. */
export function isLineQuery(query: readonly FetchQueryItem[]): boolean {
  return query.every((q) => lineItems.has(q.item));
}

/** One value's text; undefined when imap-core's own path has to answer the message. */
type Part = (row: MessageRow, summary: MessageSummary | undefined) => string | undefined;

/**
 * A FETCH's item builder: for each message the text between the parentheses of its response,
 * undefined when imap-core's path has to answer it: an ENVELOPE/BODYSTRUCTURE without a
 * summary, or RFC822.SIZE 0 (not known yet), from which imap-core computes a size of its own.
 */
export function fetchLines(
  session: Session,
  query: readonly FetchQueryItem[],
  utf8: boolean,
): (row: MessageRow, summary: MessageSummary | undefined) => string | undefined {
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
    switch (q.item) {
      case 'uid':
        return (row) => name + row.uid;
      case 'flags':
        return (row) => {
          session.untagged.keywords(row.flags);
          return name + flagList(row.flags.map(atom));
        };
      case 'modseq':
        return (row) => name + (row.modseq ? `(${row.modseq})` : '()');
      case 'internaldate':
        return (row) => name + JSON.stringify(formatInternalDate(new Date(row.idate)));
      case 'rfc822.size':
        return (row) => (row.size ? name + row.size : undefined);
      case 'envelope':
      case 'bodystructure': {
        const item = q.item;
        return (_row, summary) => summary && `${name}(${compiledToken(summary.compiled, item, utf8)[0].value})`;
      }
      default:
        throw new Error(`FETCH ${q.item} is not answered as a line`);
    }
  });

  return (row, summary) => {
    let items = '';
    for (const part of parts) {
      const text = part(row, summary);
      if (text === undefined) return undefined;
      items += items ? ` ${text}` : text;
    }
    return items;
  };
}

/**
 * A list of compiled atoms as imap-core's compiler joins them: no space after "(", "<" or "["
 * (so `a[` and `b` become `(a[b)`), and an empty flag is an empty atom.
 */
function flagList(atoms: string[]): string {
  let list = '(';
  for (const text of atoms) {
    if (!'(<['.includes(list[list.length - 1])) list += ' ';
    list += text;
  }
  return `${list})`;
}
