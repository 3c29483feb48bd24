import addressparser, { type Address } from 'nodemailer/lib/addressparser';
import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../model/mail-rows';
import { baseSubject } from './base-subject';
import { casemap } from './casemap';
import { headerValues, rawHeaderValues } from './search';

/** One key of a SORT program (RFC 5256 3), as imap-core parses it. */
export interface SortKey {
  key: 'arrival' | 'cc' | 'date' | 'from' | 'size' | 'subject' | 'to';
  reverse: boolean;
}

type SortValue = number | string;

/** The addr-mailbox (local part) of a field's first address, or "" (RFC 5256 3). */
function firstMailbox(lines: readonly string[], field: string): string {
  const flat = (a: Address): Address[] => (a.group ? a.group.flatMap(flat) : [a]);
  const [first] = rawHeaderValues(lines, field).flatMap((v) => addressparser(v).flatMap(flat));
  const address = first?.address ?? '';
  const at = address.lastIndexOf('@');
  return casemap(at < 0 ? address : address.slice(0, at));
}

/** The sent date in UTC milliseconds; the INTERNALDATE when the Date header is missing or unreadable. */
function sentDate(lines: readonly string[], row: MessageRow): number {
  const [date] = rawHeaderValues(lines, 'date');
  const parsed = date ? Date.parse(date.replace(/\s*\([^)]*\)\s*$/, '')) : Number.NaN;
  return Number.isNaN(parsed) ? row.idate : parsed;
}

function sortValue(key: SortKey['key'], row: MessageRow, lines: readonly string[]): SortValue {
  switch (key) {
    case 'arrival':
      return row.idate;
    case 'size':
      return row.size;
    case 'date':
      return sentDate(lines, row);
    case 'subject':
      return casemap(baseSubject(headerValues(lines, 'subject')[0] ?? ''));
    default:
      return firstMailbox(lines, key);
  }
}

const compare = (a: SortValue, b: SortValue) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The UIDs of `matches` in the order a SORT program gives (RFC 5256), answered from the stored
 * rows and header lines; messages equal under every key keep their mailbox order.
 */
export async function sortMessages(
  view: AccountView,
  folder: ImapFolder,
  matches: readonly number[],
  program: readonly SortKey[],
): Promise<number[]> {
  const wanted = new Set(matches);
  const rows = view.allRows(folder).filter((r) => wanted.has(r.uid));
  const needsHeaders = program.some((k) => k.key !== 'arrival' && k.key !== 'size');
  const headers = needsHeaders ? await view.headers(rows.map((r) => r.messageUid)) : new Map<string, string[]>();
  const keyed = rows.map((row, position) => {
    const lines = headers.get(row.messageUid) ?? [];
    return { uid: row.uid, position, values: program.map((k) => sortValue(k.key, row, lines)) };
  });
  keyed.sort((a, b) => {
    for (let i = 0; i < program.length; i++) {
      const order = compare(a.values[i], b.values[i]);
      if (order) return program[i].reverse ? -order : order;
    }
    return a.position - b.position;
  });
  return keyed.map((k) => k.uid);
}
