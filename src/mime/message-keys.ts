import addressparser, { type Address } from 'nodemailer/lib/addressparser';
import { baseOfSubjectText } from './base-subject';
import { casemap } from './casemap';
import { displaySortValue } from './display-name';
import { writtenAddresses } from './searched-fields';
import { headerText } from './header-text';
import { parseDateHeader } from './sent-date';
import { mapped } from '../util/lists';
import { Memo } from '../util/memo';

/**
 * What IMAP SORT and THREAD (RFC 5256) compare of a message, and the decoded fields SEARCH
 * matches most, computed from its top-level header lines. A message's bytes never change, so
 * these are computed once, when the message is described (./metadata-record.ts), and stored
 * beside it: a client's first SORT or SEARCH of a large folder then reads them instead of
 * parsing every message's header lines.
 */
export interface MessageKeys {
  /** The Date header as epoch milliseconds; null without one or when it is not a date (then the INTERNALDATE counts). */
  sentDate: number | null;
  /** The base subject (RFC 5256 2.1) in casemap form, "" without a Subject header. */
  baseSubject: string;
  /** Whether a reply or forward marker was removed from the subject (THREAD=REFERENCES prefers the original). */
  replyOrForward: boolean;
  /** The addr-mailbox of the field's first address in casemap form, "" without one (SORT FROM, TO, CC). */
  fromMailbox: string;
  toMailbox: string;
  ccMailbox: string;
  /** DISPLAYFROM's and DISPLAYTO's values (RFC 5957). */
  displayFrom: string;
  displayTo: string;
  /** The message's own Message-ID without brackets, null without one. */
  messageId: string | null;
  /** The ids of its ancestors, oldest first: the References, else the first In-Reply-To. */
  parents: readonly string[];
  /** What SEARCH SUBJECT, FROM, TO and CC match: the field's values as ./searched-fields.ts's searchedValues gives them. */
  subjectText: readonly string[];
  fromText: readonly string[];
  toText: readonly string[];
  ccText: readonly string[];
}

export type MessageKey = keyof MessageKeys;

/** The header fields (lower case) SEARCH reads from the keys, and the key holding each. */
export const searchedKeys = { subject: 'subjectText', from: 'fromText', to: 'toText', cc: 'ccText' } as const;

const noValues: readonly string[] = [];

/** The header fields the keys are computed from. */
const keyedFields = new Set(['date', 'subject', 'from', 'to', 'cc', 'message-id', 'references', 'in-reply-to']);

/**
 * The values of each keyed field, unfolded and trimmed, in one pass over the header lines (as
 * ./searched-fields.ts's rawHeaderValues gives each): the ordering keys read a field's first
 * value, SEARCH every one.
 */
function fieldValues(headerLines: readonly string[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).toLowerCase();
    if (!keyedFields.has(name)) continue;
    const value = line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return values;
}

/**
 * The addr-mailbox (local part) of a field's first address in casemap form, "" without one;
 * a group counts by its name, as in ENVELOPE, where a group starts with an address whose
 * mailbox is its name.
 */
function firstMailbox(first: Address | undefined): string {
  if (!first) return '';
  const at = first.address?.lastIndexOf('@') ?? -1;
  return casemap(first.group ? first.name : at < 0 ? first.address : first.address.slice(0, at));
}

/** A message id as REFERENCES links them: the text between angle brackets. */
function messageIds(value: string | undefined): string[] {
  const ids: string[] = [];
  if (value) for (const m of value.matchAll(/<([^<>\s]+)>/g)) ids.push(m[1]);
  return ids;
}

/** One address field value's keys: its first address's SORT values (firstMailbox, displaySortValue) and SEARCH's text. */
interface AddressValueKeys {
  mailbox: string;
  display: string;
  text: string;
}

/**
 * Remembered by value, as header-fields.ts remembers parsed address fields: correspondents
 * repeat from message to message, and parsing them and decoding their names was most of what
 * the keys cost a sync.
 */
const addressValueKeys = new Memo<string, AddressValueKeys>(10_000);

function keysOfAddressValue(value: string): AddressValueKeys {
  let keys = addressValueKeys.get(value);
  if (keys === undefined) {
    const addresses = addressparser(value);
    keys = {
      mailbox: firstMailbox(addresses[0]),
      display: displaySortValue(addresses[0]),
      text: casemap(writtenAddresses(addresses)),
    };
    addressValueKeys.set(value, keys);
  }
  return keys;
}

/** An address field's keys: its first value's SORT values ("" without one) and each value's SEARCH text. */
function addressKeys(values: readonly string[] | undefined): { mailbox: string; display: string; text: string[] } {
  const keys = mapped(values ?? noValues, keysOfAddressValue);
  return { mailbox: keys[0]?.mailbox ?? '', display: keys[0]?.display ?? '', text: mapped(keys, (k) => k.text) };
}

export function messageKeys(headerLines: readonly string[]): MessageKeys {
  const values = fieldValues(headerLines);
  const first = (name: string) => values.get(name)?.[0];
  const date = first('date');
  // what SEARCH SUBJECT matches, the base subject computed on the first of it
  const subjectText = mapped(values.get('subject') ?? noValues, (v) => casemap(headerText(v)));
  const { base, replyOrForward } = subjectText.length
    ? baseOfSubjectText(subjectText[0])
    : { base: '', replyOrForward: false };
  const [from, to, cc] = [
    addressKeys(values.get('from')),
    addressKeys(values.get('to')),
    addressKeys(values.get('cc')),
  ];
  const references = messageIds(first('references'));
  return {
    sentDate: date === undefined ? null : parseDateHeader(date),
    baseSubject: base,
    replyOrForward,
    fromMailbox: from.mailbox,
    toMailbox: to.mailbox,
    ccMailbox: cc.mailbox,
    displayFrom: from.display,
    displayTo: to.display,
    messageId: messageIds(first('message-id'))[0] ?? null,
    parents: references.length ? references : messageIds(first('in-reply-to')).slice(0, 1),
    subjectText,
    fromText: from.text,
    toText: to.text,
    ccText: cc.text,
  };
}
