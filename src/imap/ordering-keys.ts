import addressparser from 'nodemailer/lib/addressparser';
import { baseSubject, type BaseSubject } from '../mime/base-subject';
import { casemap } from '../mime/casemap';
import { displaySortValue } from '../mime/display-name';
import { parseDateHeader } from '../mime/sent-date';

/**
 * What SORT and THREAD (RFC 5256) compare of one message, read from its header lines: the
 * sent date, base subject, first addresses and message ids. A message's bytes never change,
 * so these are computed once, each when first asked for, and kept with the message
 * (./ordered-search.ts caches them per message), instead of parsing header lines on every
 * command or comparison. Only the fields these keys read are kept, not the header lines.
 */

/** The header fields the keys are computed from. */
const fields = ['date', 'subject', 'from', 'to', 'cc', 'message-id', 'references', 'in-reply-to'] as const;
type Field = (typeof fields)[number];
const wanted: ReadonlySet<string> = new Set(fields);

export type AddressField = 'from' | 'to' | 'cc';

/** A message id as REFERENCES links them: the text between angle brackets. */
function messageIds(value: string | undefined): string[] {
  return value ? [...value.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]) : [];
}

export class OrderingKeys {
  /** Each field's first value, unfolded and trimmed (as ../mime/header-fields.ts's rawHeaderValues gives it). */
  private readonly values: Partial<Record<Field, string>> = {};
  private sent?: number | null;
  private base?: BaseSubject;
  private ids?: { own: string | undefined; parents: string[] };
  private readonly mailboxes: Partial<Record<AddressField, string>> = {};

  constructor(headerLines: readonly string[]) {
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).toLowerCase();
      if (!wanted.has(name) || this.values[name as Field] !== undefined) continue;
      this.values[name as Field] = line
        .slice(colon + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim();
    }
  }

  /** The sent date (RFC 5256 2.2): the Date header as an instant, else `idate` (the INTERNALDATE). */
  sentDate(idate: number): number {
    if (this.sent === undefined) this.sent = this.values.date === undefined ? null : parseDateHeader(this.values.date);
    return this.sent ?? idate;
  }

  /** The base subject (RFC 5256 2.1), "" without a Subject header. */
  get subject(): BaseSubject {
    this.base ??=
      this.values.subject === undefined ? { base: '', replyOrForward: false } : baseSubject(this.values.subject);
    return this.base;
  }

  /**
   * The addr-mailbox (local part) of a field's first address in casemap form, "" without one;
   * a group counts by its name, as in ENVELOPE, where a group starts with an address whose
   * mailbox is its name.
   */
  firstMailbox(field: AddressField): string {
    let mailbox = this.mailboxes[field];
    if (mailbox === undefined) {
      const value = this.values[field];
      const [first] = value ? addressparser(value) : [];
      const at = first?.address?.lastIndexOf('@') ?? -1;
      mailbox = !first ? '' : casemap(first.group ? first.name : at < 0 ? first.address : first.address.slice(0, at));
      this.mailboxes[field] = mailbox;
    }
    return mailbox;
  }

  /** DISPLAYFROM's or DISPLAYTO's value (RFC 5957), computed each time: these keys are rarely asked for. */
  displayName(field: 'from' | 'to'): string {
    return displaySortValue(this.values[field]);
  }

  /** The message's own Message-ID (without brackets), if it has one. */
  get messageId(): string | undefined {
    return this.links().own;
  }

  /** The ids of its ancestors, oldest first: the References, else the first In-Reply-To. */
  get references(): readonly string[] {
    return this.links().parents;
  }

  private links(): { own: string | undefined; parents: string[] } {
    if (!this.ids) {
      const references = messageIds(this.values.references);
      this.ids = {
        own: messageIds(this.values['message-id'])[0],
        parents: references.length ? references : messageIds(this.values['in-reply-to']).slice(0, 1),
      };
    }
    return this.ids;
  }
}
