import { createIndexer, type MimeTreeNode } from './imap-indexer';

/**
 * A message's bytes as imap-core's indexer writes them for BODY[] (and, `textOnly`, BODY[TEXT]):
 * rebuild() in node_modules/@mailbridge/imap-core/lib/indexer/indexer.js, its walk followed step
 * for step, but synchronously and into a list of Buffers: the tree's body Buffers and the
 * attachments' encoded bytes go in as they are, not copied, and nothing passes through streams.
 * test/imap/body-literal.test.ts compares both for every corpus message.
 */

const newline = Buffer.from('\r\n');

/** The header lines each ended by CRLF, as rebuild's headerLines (nothing without lines). */
function headerLines(header: string[] | undefined): string {
  const lines = header ?? [];
  return lines.length ? `${lines.join('\r\n')}\r\n` : '';
}

function delimiter(node: MimeTreeNode, child: MimeTreeNode | undefined): string {
  return `--${node.boundary}${child?.delimiterPadding || ''}`;
}

function closeDelimiter(node: MimeTreeNode): string {
  const end = node.epilogue ? node.epilogue.toString('latin1') : '\r\n';
  return `--${node.boundary}--${node.closePadding || ''}${end}`;
}

/**
 * The Buffers of `tree`'s bytes, or null when one of its attachments' bytes is not given
 * (`attachment`: an external node's encoded bytes) or the tree holds what rebuild reads
 * otherwise (a body that is not bytes, attachment ids mapped elsewhere).
 */
export function messageLiteral(
  tree: MimeTreeNode,
  textOnly: boolean,
  attachment: (id: string) => Buffer | undefined,
): Buffer[] | null {
  if (tree.attachmentMap) return null;
  const out: Buffer[] = [];
  const write = (bytes: Buffer) => {
    if (bytes.length) out.push(bytes);
  };
  let firstLine = true;
  let root = true;
  // the node's body, written before whatever comes next (rebuild's `remainder`)
  let remainder: Buffer | null = null;
  const emit = (data?: string, force = false) => {
    if (remainder || data || force) {
      if (!firstLine) write(newline);
      firstLine = false;
      if (remainder) write(remainder);
      if (data) write(Buffer.from(data, 'latin1'));
    }
    remainder = null;
  };
  const walk = (node: MimeTreeNode): boolean => {
    if (!textOnly || !root) emit(headerLines(node.header), true);
    root = false;
    const body = node.body;
    if (typeof body === 'string') remainder = Buffer.from(body, 'latin1');
    else if (Buffer.isBuffer(body)) remainder = body;
    else if (body) return false;
    else remainder = null;
    if (node.boundary) emit(delimiter(node, node.childNodes?.[0]));
    else if (node.attachmentId) {
      emit(undefined, true);
      if (node.size) {
        const bytes = attachment(node.attachmentId);
        if (!bytes) return false;
        write(bytes);
      }
    }
    const children = node.childNodes ?? [];
    for (let i = 0; i < children.length; i++) {
      if (!walk(children[i])) return false;
      if (i < children.length - 1) emit(delimiter(node, children[i + 1]));
    }
    if (node.boundary) emit(closeDelimiter(node));
    emit();
    return true;
  };
  if (!walk(tree)) return null;
  if ((tree.lineCount ?? 0) > 1) write(newline);
  return out;
}

const indexer = createIndexer();

/** A literal's bytes, as the Buffers to write one after the other, and their length. */
export interface LiteralBytes {
  bytes: Buffer[];
  length: number;
}

/**
 * messageLiteral's Buffers when they are as long as what imap-core announces for the section
 * (getSize), else null: imap-core's path then answers, padding or cutting its stream to that
 * length as it does.
 */
export function bodyLiteral(
  tree: MimeTreeNode,
  textOnly: boolean,
  attachment: (id: string) => Buffer | undefined,
): LiteralBytes | null {
  const bytes = messageLiteral(tree, textOnly, attachment);
  if (!bytes) return null;
  let length = 0;
  for (const b of bytes) length += b.length;
  return length === indexer.getSize(tree, textOnly) ? { bytes, length } : null;
}
