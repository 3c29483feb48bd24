import type { OrderingKeys } from './ordering-keys';

/**
 * SORT (RFC 5256 section 3) on what the store holds of each message: its row (INTERNALDATE,
 * RFC822.SIZE) and the keys stored with it (./ordering-keys.ts). Strings compare in i;unicode-casemap form, by code point,
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

/**
 * A comparison of positions in `messages` by one criterion: each message's key read once into
 * a column, not in every comparison; numbers compared as numbers, strings by code point.
 */
function comparator(messages: readonly Sortable[], { key, reverse }: SortCriterion): (a: number, b: number) => number {
  const sign = reverse ? -1 : 1;
  if (key === 'arrival' || key === 'size' || key === 'date') {
    const column = new Float64Array(messages.length);
    messages.forEach((m, i) => {
      column[i] = keyOf(key, m) as number;
    });
    return (a, b) => sign * (column[a] - column[b]);
  }
  const column = messages.map((m) => keyOf(key, m) as string);
  return (a, b) => sign * compareCodePoints(column[a], column[b]);
}

/** The UIDs of `messages` (in mailbox order) in the order the criteria give. */
export function sortMessages(messages: readonly Sortable[], criteria: readonly SortCriterion[]): number[] {
  const compares = criteria.map((c) => comparator(messages, c));
  const positions = messages.map((_, position) => position);
  positions.sort((a, b) => {
    for (const compare of compares) {
      const order = compare(a, b);
      if (order) return order;
    }
    return a - b;
  });
  return positions.map((position) => messages[position].uid);
}
