import type { MessageKey, MessageKeys } from '../mime/message-keys';

/**
 * How a message's SORT, THREAD and SEARCH keys (../mime/message-keys.ts) are kept: the table
 * `message_keys`, one column per key, so that a command reads only the keys it compares (SORT
 * DATE one integer per message) without parsing whole rows. A narrow table of its own rather
 * than columns of message_cache, whose rows hold whole messages: reading a column past those
 * would read every row's overflow pages.
 */

interface KeyColumn {
  name: string;
  type: 'integer' | 'smallint' | 'text';
  nullable?: boolean;
  encode(value: MessageKeys[MessageKey]): unknown;
  decode(value: unknown): MessageKeys[MessageKey];
}

const same = { encode: (v: unknown) => v, decode: (v: unknown) => v as never };
const text = (name: string): KeyColumn => ({ name, type: 'text', ...same });
/** Lists of strings as JSON. */
const list = (name: string): KeyColumn => ({
  name,
  type: 'text',
  encode: (v) => JSON.stringify(v),
  decode: (v) => JSON.parse(v as string) as string[],
});

export const keyColumns: Readonly<Record<MessageKey, KeyColumn>> = {
  sentDate: { name: 'sent_date', type: 'integer', nullable: true, ...same },
  baseSubject: text('base_subject'),
  replyOrForward: {
    name: 'reply_or_forward',
    type: 'smallint',
    encode: (v) => (v ? 1 : 0),
    decode: (v) => v === 1,
  },
  fromMailbox: text('from_mailbox'),
  toMailbox: text('to_mailbox'),
  ccMailbox: text('cc_mailbox'),
  displayFrom: text('display_from'),
  displayTo: text('display_to'),
  messageId: { name: 'message_id', type: 'text', nullable: true, ...same },
  parents: list('parents'),
  subjectText: list('subject_text'),
  fromText: list('from_text'),
  toText: list('to_text'),
  ccText: list('cc_text'),
};

/** Every key, in the table's column order. */
export const messageKeyNames = Object.keys(keyColumns) as MessageKey[];

/** A message's keys as column values, in the table's column order. */
export function keyValues(keys: MessageKeys): unknown[] {
  return messageKeyNames.map((k) => keyColumns[k].encode(keys[k]));
}

/** The columns `keys` name, as read back after the message's uid (`row[0]`): each value decoded into its key. */
export function readKeys(keys: readonly MessageKey[], row: readonly unknown[]): Partial<MessageKeys> {
  const out: Partial<Record<MessageKey, unknown>> = {};
  for (let i = 0; i < keys.length; i++) out[keys[i]] = keyColumns[keys[i]].decode(row[i + 1]);
  return out as Partial<MessageKeys>;
}
