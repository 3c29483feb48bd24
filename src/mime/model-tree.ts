import type { MailMessage } from '../domain/message';
import { composeOptions, encodeBody } from './compose';
import { writeHeader } from './header-block';
import type { MimeTreeNode } from './imap-indexer';
import { type LaidOutPart, mimeLayout } from './mime-layout';
import { type PartSource, partTree } from './part-tree';

/**
 * The indexer's MIME tree of a message, made from the message model without composing it:
 * compose.ts's options laid out as MailComposer would (mime-layout.ts), each part's header
 * block written as MimeNode would (header-block.ts) and its body encoded by nodemailer's own
 * encoders, then read as imap-core's parser would (part-tree.ts). The same tree as composing
 * gives (test/mime/model-description.test.ts compares both for every corpus message); null
 * where the message is not laid out here, and describing composes it instead.
 */

export interface ModelTree {
  mimeTree: MimeTreeNode;
  /** The laid-out parts, in the tree's order: which leaf holds which vendor attachment. */
  layout: LaidOutPart;
}

function source(part: LaidOutPart, baseBoundary: string): PartSource {
  return {
    write() {
      const header = writeHeader(part, baseBoundary);
      return {
        fields: header.fields,
        body: encodeBody(part.content, header.transferEncoding || ''),
        multipart: header.boundary !== false,
        boundary: header.boundary,
        children: part.children.map((child) => source(child, baseBoundary)),
      };
    },
  };
}

/** The tree of `msg` with empty attachment bodies, or null where only composing it tells. */
export function modelTree(msg: MailMessage): ModelTree | null {
  const compose = composeOptions(msg, () => Buffer.alloc(0));
  const layout = mimeLayout(compose);
  if (!layout) return null;
  const mimeTree = partTree(source(layout, compose.options.baseBoundary), true);
  return mimeTree && { mimeTree, layout };
}
