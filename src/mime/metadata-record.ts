import { deflateRawSync } from 'node:zlib';
import type { VendorMessage } from '../upstream/types';
import { describeMessage, type MessageDescription } from './describe';
import { compileSummary } from './compiled-summary';
import { encodeWithBuffers } from './tree-codec';

/**
 * The stored form of a message's metadata (the `metadata` table row): the vendor JSON with its
 * description, deflated, plus ENVELOPE and BODYSTRUCTURE in their own column. Made in one
 * place so describe workers (describe-pool.ts) and the store write exactly the same rows.
 */

export interface MetadataRecord {
  messageUid: string;
  /** RFC822.SIZE */
  size: number;
  /** Deflated (level 1: most of the gain for a fraction of the CPU) encodeWithBuffers({ message, mimeTree, size, bodystructure, envelope }). */
  data: Buffer;
  /** JSON of the CompiledSummary (ENVELOPE/BODYSTRUCTURE wire text, compiled-summary.ts). */
  imap: string;
}

export function encodeMetadataRecord(messageUid: string, meta: { message: VendorMessage } & MessageDescription): MetadataRecord {
  return {
    messageUid,
    size: meta.size,
    data: deflateRawSync(Buffer.from(encodeWithBuffers(meta)), { level: 1 }),
    imap: JSON.stringify(compileSummary(meta.envelope, meta.bodystructure)),
  };
}

/** describeMessage + encodeMetadataRecord: what a sync stores for a fetched message. */
export function describeRecord(msg: VendorMessage): MetadataRecord {
  return encodeMetadataRecord(msg.message_uid, { message: msg, ...describeMessage(msg) });
}
