import { decodeContent } from '@mailbridge/imap-core/lib/binary';
import { createIndexer, type ImapAttachmentStorage, type MimeTreeNode } from '../mime';
import type { FetchQueryItem } from './fetch-query';
import { ImapError } from './imap-error';

/** Whether a FETCH item is BINARY[...] or BINARY.SIZE[...] (RFC 3516). */
export const isBinaryItem = (q: FetchQueryItem) => q.item === 'binary' || q.item === 'binary.size';

/**
 * The decoded content of every section a FETCH's BINARY items name, by part path ("" for the
 * whole message), for imap-core to answer from. Attachment bytes are read from `storage`
 * (prefetched before the answer starts, as for BODY[]); a part whose transfer encoding cannot
 * be undone fails the FETCH with NO [UNKNOWN-CTE] (RFC 3516 4.3).
 */
export async function binarySections(
  tree: MimeTreeNode,
  query: readonly FetchQueryItem[],
  storage: ImapAttachmentStorage,
): Promise<Record<string, Buffer>> {
  const indexer = createIndexer(storage);
  const sections: Record<string, Buffer> = {};
  for (const path of new Set(query.filter(isBinaryItem).map((q) => q.path ?? ''))) {
    const contents = indexer.getContents(tree, path ? { path, type: 'content' } : false);
    const chunks: Buffer[] = [];
    if (typeof contents === 'string') chunks.push(Buffer.from(contents, 'binary'));
    else for await (const chunk of contents.value) chunks.push(chunk as Buffer);
    // a rebuilt part's stream may run past its content (the line break before the next
    // delimiter); BODY[...] is cut to the expected length the same way
    const encoded = Buffer.concat(chunks);
    const content = typeof contents === 'string' ? encoded : encoded.subarray(0, contents.expectedLength);
    try {
      sections[path] = decodeContent(path ? indexer.resolveContentNode(tree, path) || null : null, content);
    } catch (err) {
      if ((err as { code?: string }).code === 'UNKNOWN-CTE') throw new ImapError('UNKNOWN-CTE', (err as Error).message);
      throw err;
    }
  }
  return sections;
}
