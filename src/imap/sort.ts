import addressparser from 'nodemailer/lib/addressparser';
import { baseSubject } from './base-subject';
import { casemap } from './casemap';
import { rawHeaderValues } from './search';
import { sentDate } from './sent-date';

/**
 * SORT (RFC 5256 section 3) on what the store holds of each message: its row (INTERNALDATE,
 * RFC822.SIZE) and its header lines. Strings compare in i;unicode-casemap form, by code point,
 * as Dovecot does; messages equal under every criterion keep their mailbox order.
 */

export type SortKey = 'arrival' | 'cc' | 'date' | 'from' | 'size' | 'subject' | 'to';

export interface SortCriterion {
  key: SortKey;
  reverse: boolean;
}

/** A message to order: its UID, its row's INTERNALDATE and size, its stored header lines. */
export interface Sortable {
  uid: number;
  /** INTERNALDATE, epoch milliseconds. */
  idate: number;
  size: number;
  headerLines: readonly string[];
}

/**
 * The addr-mailbox (local part) of a field's first address, "" without one; a group counts by
 * its name, as in ENVELOPE, where a group starts with an address whose mailbox is its name.
 */
export function firstMailbox(headerLines: readonly string[], field: string): string {
  const [value] = rawHeaderValues(headerLines, field);
  const [first] = value ? addressparser(value) : [];
  if (!first) return '';
  if (first.group) return casemap(first.name);
  const at = first.address.lastIndexOf('@');
  return casemap(at < 0 ? first.address : first.address.slice(0, at));
}

/** The sort key's value of one message. */
function keyOf(key: SortKey, m: Sortable): string | number {
  switch (key) {
    case 'arrival':
      return m.idate;
    case 'size':
      return m.size;
    case 'date':
      return sentDate(m.headerLines, m.idate);
    case 'subject': {
      const [subject] = rawHeaderValues(m.headerLines, 'subject');
      return subject === undefined ? '' : baseSubject(subject).base;
    }
    default:
      return firstMailbox(m.headerLines, key);
  }
}

/** Strings by code point (JavaScript's `<` orders UTF-16 units, which puts U+E000-U+FFFF after astral characters). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // a surrogate (an astral character) outranks any unit of the basic plane at or above U+E000
    if (x >= 0xd800 && x <= 0xdfff && y >= 0xe000) return 1;
    if (y >= 0xd800 && y <= 0xdfff && x >= 0xe000) return -1;
    return x - y;
  }
  return a.length - b.length;
}

function compareValues(a: string | number, b: string | number): number {
  return typeof a === 'number' ? a - (b as number) : compareCodePoints(a, b as string);
}

/** The UIDs of `messages` (in mailbox order) in the order the criteria give. */
export function sortMessages(messages: readonly Sortable[], criteria: readonly SortCriterion[]): number[] {
  const keyed = messages.map((m, position) => ({
    uid: m.uid,
    position,
    keys: criteria.map((c) => keyOf(c.key, m)),
  }));
  keyed.sort((a, b) => {
    for (let i = 0; i < criteria.length; i++) {
      const order = compareValues(a.keys[i], b.keys[i]);
      if (order) return criteria[i].reverse ? -order : order;
    }
    return a.position - b.position;
  });
  return keyed.map((k) => k.uid);
}
