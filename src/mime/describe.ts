import type MimeNode from 'nodemailer/lib/mime-node';
import type { AttachmentMeta, VendorMessage } from '../upstream/types';
import { base64EncodedSize, base64Lines } from './base64-window';
import { composeMessage, serializeMimeNode } from './compose';
import { createIndexer, type MimeTreeNode } from './imap-indexer';

/**
 * IMAP metadata of a vendor message without its attachment bytes. The message is composed
 * with empty attachment bodies, parsed by imap-core's indexer, and every attachment leaf then
 * becomes an external node: `attachmentId` names the vendor attachment, `size`/`lineCount`
 * are those of its base64 form computed from size_bytes. imap-core's rebuild() streams such
 * nodes from the attachment storage (attachment-storage.ts), exactly as WildDuck serves
 * attachments it keeps outside the MIME tree.
 */

export interface MessageDescription {
  mimeTree: MimeTreeNode;
  /** RFC822.SIZE: byte length of the message as served. */
  size: number;
  bodystructure: unknown[];
  envelope: unknown[];
}

export interface AttachmentRef {
  messageUid: string;
  attachmentId: string;
  /** Raw byte count the vendor declared (size_bytes). */
  size: number;
}

const sep = '\u0000';

/** External node id: everything the storage needs to fetch and size-check the bytes. */
export function externalId(ref: AttachmentRef): string {
  return [ref.messageUid, ref.attachmentId, String(ref.size)].join(sep);
}

export function parseExternalId(id: string): AttachmentRef {
  const parts = id.split(sep);
  if (parts.length !== 3 || !/^\d+$/.test(parts[2])) throw new Error('not a mailbridge attachment id');
  return { messageUid: parts[0], attachmentId: parts[1], size: Number(parts[2]) };
}

const indexer = createIndexer();

/** Walks the parsed tree and the nodemailer tree together: parsing keeps the node order. */
function externalize(
  parsed: MimeTreeNode,
  node: MimeNode,
  attachments: Map<MimeNode, AttachmentMeta>,
  messageUid: string,
): void {
  const att = attachments.get(node);
  if (att && att.size_bytes > 0) {
    parsed.body = false;
    parsed.size = base64EncodedSize(att.size_bytes);
    parsed.lineCount = base64Lines(att.size_bytes) - 1;
    parsed.attachmentId = externalId({ messageUid, attachmentId: att.attachment_id, size: att.size_bytes });
  }
  const children = parsed.childNodes ?? [];
  if (children.length !== node.childNodes.length) throw new Error('parsed MIME tree does not match the composed one');
  for (const [i, child] of children.entries()) externalize(child, node.childNodes[i], attachments, messageUid);
}

export function describeMessage(msg: VendorMessage): MessageDescription {
  const { root, attachmentNodes } = composeMessage(msg, () => Buffer.alloc(0));
  const mimeTree = indexer.parseMimeTree(serializeMimeNode(root));
  externalize(mimeTree, root, attachmentNodes, msg.message_uid);
  return {
    mimeTree,
    size: indexer.getSize(mimeTree),
    bodystructure: indexer.getBodyStructure(mimeTree),
    envelope: indexer.getEnvelope(mimeTree),
  };
}

/** The description of a message that exists only as bytes (a draft a client appended). */
export function describeRaw(raw: Buffer): MessageDescription {
  const mimeTree = indexer.parseMimeTree(raw);
  return {
    mimeTree,
    size: indexer.getSize(mimeTree),
    bodystructure: indexer.getBodyStructure(mimeTree),
    envelope: indexer.getEnvelope(mimeTree),
  };
}

/** The decoded text and HTML parts of a message held as bytes: what SEARCH BODY/TEXT reads of a draft. */
export function readableText(raw: Buffer): { text: string; html: string } {
  const { text, html } = indexer.getMaildata(indexer.parseMimeTree(raw));
  return { text, html: html.join('\n') };
}

/** External attachments in a tree, in message order. */
export function externalAttachments(tree: MimeTreeNode): AttachmentRef[] {
  const out: AttachmentRef[] = [];
  const walk = (node: MimeTreeNode): void => {
    if (node.attachmentId) out.push(parseExternalId(node.attachmentId));
    node.childNodes?.forEach(walk);
    if (node.message) walk(node.message);
  };
  walk(tree);
  return out;
}
