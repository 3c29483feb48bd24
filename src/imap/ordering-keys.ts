import type { BaseSubject } from '../mime/base-subject';
import type { MessageKey, MessageKeys } from '../mime/message-keys';

/**
 * What SORT and THREAD (RFC 5256) compare of one message: the sent date, base subject, first
 * addresses and message ids, as computed when the message was described (../mime/message-keys.ts)
 * and read from the store, only those keys a command compares (./ordered-search.ts).
 */

export type AddressField = 'from' | 'to' | 'cc';

const mailboxKeys = { from: 'fromMailbox', to: 'toMailbox', cc: 'ccMailbox' } as const;

export class OrderingKeys {
  constructor(private readonly keys: Partial<MessageKeys>) {}

  /** A key read for this command: asking for one not read is a defect, not an empty value. */
  private need<K extends MessageKey>(key: K): MessageKeys[K] {
    const value = this.keys[key];
    if (value === undefined) throw new Error(`ordering key ${key} was not read`);
    return value as MessageKeys[K];
  }

  /** The sent date (RFC 5256 2.2): the Date header as an instant, else `idate` (the INTERNALDATE). */
  sentDate(idate: number): number {
    return this.need('sentDate') ?? idate;
  }

  /** The base subject (RFC 5256 2.1), "" without a Subject header. */
  get subject(): BaseSubject {
    return { base: this.need('baseSubject'), replyOrForward: this.need('replyOrForward') };
  }

  /** The addr-mailbox of a field's first address in casemap form, "" without one. */
  firstMailbox(field: AddressField): string {
    return this.need(mailboxKeys[field]);
  }

  /** DISPLAYFROM's or DISPLAYTO's value (RFC 5957). */
  displayName(field: 'from' | 'to'): string {
    return this.need(field === 'from' ? 'displayFrom' : 'displayTo');
  }

  /** The message's own Message-ID (without brackets), if it has one. */
  get messageId(): string | undefined {
    return this.need('messageId') ?? undefined;
  }

  /** The ids of its ancestors, oldest first: the References, else the first In-Reply-To. */
  get references(): readonly string[] {
    return this.need('parents');
  }
}
