import type { OrderingKeys } from './ordering-keys';

/**
 * SORT (RFC 5256 section 3) on what the store holds of each message: its row (INTERNALDATE,
 * RFC822.SIZE) and the keys read from its header lines (./ordering-keys.ts). Strings compare in i;unicode-casemap form, by code point,
 * as Dovecot does; messages equal under every criterion keep their mailbox order.
 */

export type SortKey = 'arrival' | 'cc' | 'date' | 'from' | 'size' | 'subject' | 'to' | 'displayfrom' | 'displayto';

export interface SortCriterion {
  key: SortKey;
  reverse: boolean;
}

/** A message to order: its UID, its row's INTERNALDATE and size, the keys of its header lines. */
export interface Sortable {
  uid: number;
  /** INTERNALDATE, epoch milliseconds. */
  idate: number;
  size: number;
  keys: OrderingKeys;
}

/** The sort key's value of one message. */
function keyOf(key: SortKey, m: Sortable): string | number {
  switch (key) {
    case 'arrival':
      return m.idate;
    case 'size':
      return m.size;
    case 'date':
      return m.keys.sentDate(m.idate);
    case 'subject':
      return m.keys.subject.base;
    case 'displayfrom':
      return m.keys.displayName('from');
    case 'displayto':
      return m.keys.displayName('to');
    default:
      return m.keys.firstMailbox(key);
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
