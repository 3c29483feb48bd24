import type { Readable } from 'node:stream';
import { attachmentsRead, type ContentSelector, createIndexer } from '../mime';
import type { AccountView } from './account-view';

/**
 * CATENATE (RFC 4469): a message built from text the client sends and parts of messages the
 * bridge holds, each named by mailbox, UIDVALIDITY, UID, section and byte range. A part is read
 * as FETCH reads it: from the local state, the message's content (and the attachment bytes
 * its section reaches) from the vendor when they are not cached. The message never grows past
 * the APPEND size limit: each part's length is known before its bytes are read.
 */

/** A section of a message as FETCH BODY[...] names it: part path, then what of the part. */
export interface SectionSelector extends ContentSelector {
  path: string;
  type: 'content' | 'header' | 'text' | 'mime' | 'header.fields' | 'header.fields.not';
  /** Lower-case field names of HEADER.FIELDS and HEADER.FIELDS.NOT. */
  headers?: string[];
}

/** What a URL part names: a section (or the whole message) of one message, or a byte range of it. */
export interface MessagePartRef {
  /** The mailbox's name (a URL relative to the selected mailbox names it too). */
  mailbox: string;
  uidValidity: number | null;
  uid: number;
  section: SectionSelector | null;
  partial: { start: number; length: number | null } | null;
}

/** A part of the message: bytes given, or a URL and what it names (null: it names no message part). */
export type CatenatePart = { text: Buffer } | { url: string; ref: MessagePartRef | null };

/** A URL that names no message part the account holds (RFC 4469 BADURL). */
export class BadUrl extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'BadUrl';
  }
}

/** The message would be larger than the APPEND size limit (RFC 4469 TOOBIG). */
export class TooBig extends Error {
  constructor(readonly limit: number) {
    super(`The message would be larger than the limit of ${limit} bytes`);
    this.name = 'TooBig';
  }
}

/** The message the parts make, in order; `limit` is the APPEND size limit in bytes. */
export async function catenate(view: AccountView, parts: readonly CatenatePart[], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const take = (length: number) => {
    size += length;
    if (size > limit) throw new TooBig(limit);
  };
  for (const part of parts) {
    if ('text' in part) {
      take(part.text.length);
      chunks.push(part.text);
      continue;
    }
    if (!part.ref) throw new BadUrl(part.url, 'Not a relative IMAP URL of a message part');
    chunks.push(await readPart(view, part.url, part.ref, take));
  }
  return Buffer.concat(chunks, size);
}

/** The bytes a URL names; `take(length)` is told their length before they are read. */
async function readPart(
  view: AccountView,
  url: string,
  ref: MessagePartRef,
  take: (length: number) => void,
): Promise<Buffer> {
  const folder = await view.folder(ref.mailbox);
  if (!folder) throw new BadUrl(url, 'No such mailbox');
  const row = await view.messageAt(folder, ref.uid);
  if (ref.uidValidity !== null && ref.uidValidity !== view.localStatus(folder).uidValidity)
    throw new BadUrl(url, 'UIDVALIDITY mismatch');
  const content = row && (await view.contents([row.messageUid])).get(row.messageUid);
  if (!content) throw new BadUrl(url, 'No such message');
  const tree = content.mimeTree;
  // BODY[] is the indexer's selector `false`; a partial read reaches only the attachments in its range
  const selector = ref.section && !(ref.section.type === 'content' && !ref.section.path) ? ref.section : false;
  const bounds = { startFrom: ref.partial?.start ?? 0, maxLength: ref.partial?.length ?? 0 };
  const contents = createIndexer(view.attachmentStorage).getContents(tree, selector, bounds);
  if (typeof contents === 'string') {
    const whole = Buffer.from(contents, 'binary');
    const bytes = whole.subarray(bounds.startFrom, bounds.maxLength ? bounds.startFrom + bounds.maxLength : undefined);
    take(bytes.length);
    return bytes;
  }
  // the stream gives the range only; its full length is the section's
  const rest = Math.max(contents.expectedLength - bounds.startFrom, 0);
  const length = bounds.maxLength ? Math.min(rest, bounds.maxLength) : rest;
  const stream = contents.value as Readable & { abort(): void };
  try {
    take(length);
  } catch (err) {
    // the stream starts on the next turn of the event loop: nothing of it is read
    stream.abort();
    stream.destroy();
    throw err;
  }
  // a vendor failure becomes the command's answer (as in FETCH), not a short part
  await view.prefetchAttachments(await attachmentsRead(tree, selector, bounds), 1);
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    read += chunk.length;
  }
  if (read < length) throw new Error(`${url}: ${read} of ${length} bytes read`);
  // a rebuilt part's stream may run past its content (the line break before the next
  // delimiter); FETCH cuts BODY[...] to the expected length the same way
  return Buffer.concat(chunks, read).subarray(0, length);
}
