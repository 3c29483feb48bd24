import type { MailMessage } from '../domain/message';
import { describeMailMessage, type MessageDescription } from './describe';
import { compileSummary } from './compiled-summary';
import { messageKeys, type MessageKeys } from './message-keys';

/**
 * The stored form of a message (a `message_cache` row): what FETCH and SEARCH read for every
 * message of a folder (RFC822.SIZE, compiled ENVELOPE/BODYSTRUCTURE, the top-level header
 * lines), and the message the MIME tree is built from again when a client asks for content.
 * The tree itself is not stored: encoding and compressing it cost a sync more than building it
 * again costs the few messages whose content a client reads. Made in one place so describe
 * workers (describe-pool.ts) and the main thread write exactly the same rows.
 */

export interface MetadataRecord {
  messageUid: string;
  /** RFC822.SIZE */
  size: number;
  /** JSON of the CompiledSummary (ENVELOPE/BODYSTRUCTURE wire text, compiled-summary.ts). */
  summary: string;
  /** JSON array of the top-level header lines, as imap-core's parser gives them. */
  header: string;
  /** JSON of the message (body included). */
  message: string;
  /** What SORT, THREAD and SEARCH compare of it, from the header lines (stored in message_keys). */
  keys: MessageKeys;
  /** Why the message could not be converted and a placeholder stands in for it (not stored). */
  unconvertible?: string;
}

/** `json`: the message's JSON, when the caller has it already. */
export function metadataRecord(
  message: MailMessage,
  description: MessageDescription,
  json = JSON.stringify(message),
): MetadataRecord {
  return {
    messageUid: message.id,
    size: description.size,
    summary: JSON.stringify(compileSummary(description.envelope, description.bodystructure)),
    header: JSON.stringify(description.mimeTree.header),
    message: json,
    keys: messageKeys(description.mimeTree.header),
  };
}

function recordOf(msg: MailMessage, json: string): MetadataRecord {
  const description = describeMailMessage(msg);
  const record = metadataRecord(msg, description, json);
  return description.unconvertible ? { ...record, unconvertible: description.unconvertible } : record;
}

/** describeMailMessage + metadataRecord: what a sync stores for a fetched message. */
export function describeRecord(msg: MailMessage): MetadataRecord {
  return recordOf(msg, JSON.stringify(msg));
}

/**
 * describeRecord of a message given as its JSON (what the row stores of it, and how describe
 * workers receive messages): the row is the same as describeRecord's of the parsed message.
 */
export function describeJson(json: string): MetadataRecord {
  return recordOf(JSON.parse(json) as MailMessage, json);
}
