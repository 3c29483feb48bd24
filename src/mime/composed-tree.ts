import type MimeNode from 'nodemailer/lib/mime-node';
import { encodeContent } from './compose';
import type { MimeTreeNode } from './imap-indexer';
import { type PartSource, partTree } from './part-tree';

/**
 * The indexer's MIME tree of a composed message, read off the nodemailer tree (part-tree.ts)
 * instead of serializing the message and parsing the bytes back (test/mime/composed-tree
 * compares both for every corpus message).
 */

function source(node: MimeNode): PartSource {
  return {
    write() {
      const header = node.buildHeaders();
      return {
        fields: [header],
        body: encodeContent(node, node.getTransferEncoding() as string),
        multipart: !!node.multipart,
        boundary: node.boundary,
        children: node.childNodes.map(source),
      };
    },
  };
}

/** The tree imap-core's parser makes of serializeMimeNode(root), or null where that is not certain. */
export function composedTree(root: MimeNode): MimeTreeNode | null {
  return partTree(source(root));
}
