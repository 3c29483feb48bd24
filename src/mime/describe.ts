import type MimeNode from 'nodemailer/lib/mime-node';
import type { MailAttachment, MailMessage } from '../domain/message';
import { base64EncodedSize, base64Lines } from './base64-window';
import { composeMessage, serializeMimeNode } from './compose';
import { composedTree } from './composed-tree';
import { createIndexer, type MimeTreeNode } from './imap-indexer';
import { modelEnvelope } from './model-envelope';
import { modelTree } from './model-tree';

/**
 * IMAP metadata of a message without its attachment bytes. The message's tree, with empty
 * attachment bodies, is made from its model as imap-core's indexer would parse the composed
 * message (model-tree.ts; where that cannot tell, the message is composed and the tree read off
 * the composition, composed-tree.ts), and every attachment leaf then becomes an external node: `attachmentId` names the vendor attachment, `size`/`lineCount`
 * are those of its base64 form computed from the declared size. imap-core's rebuild() streams such
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
  /** Raw byte count the vendor declared. */
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

/** A part of the written message, with the vendor attachment it holds. */
interface AttachmentPart {
  attachment?: MailAttachment;
  children: readonly AttachmentPart[];
}

/** Walks the parsed tree and the written parts together: parsing keeps the part order. */
function externalize(parsed: MimeTreeNode, part: AttachmentPart, messageUid: string): void {
  const att = part.attachment;
  if (att && att.size > 0) {
    parsed.body = false;
    parsed.size = base64EncodedSize(att.size);
    parsed.lineCount = base64Lines(att.size) - 1;
    parsed.attachmentId = externalId({ messageUid, attachmentId: att.id, size: att.size });
  }
  const children = parsed.childNodes ?? [];
  if (children.length !== part.children.length) throw new Error('parsed MIME tree does not match the written one');
  for (const [i, child] of children.entries()) externalize(child, part.children[i], messageUid);
}

function described(mimeTree: MimeTreeNode, envelope = indexer.getEnvelope(mimeTree)): MessageDescription {
  return {
    mimeTree,
    size: indexer.getSize(mimeTree),
    bodystructure: indexer.getBodyStructure(mimeTree),
    envelope,
  };
}

/** describeMessage by composing the message with nodemailer (what the model path must equal). */
export function describeComposed(msg: MailMessage): MessageDescription {
  const { root, attachmentNodes } = composeMessage(msg, () => Buffer.alloc(0));
  const mimeTree = composedTree(root) ?? indexer.parseMimeTree(serializeMimeNode(root));
  const parts = (node: MimeNode): AttachmentPart => ({
    attachment: attachmentNodes.get(node),
    children: node.childNodes.map(parts),
  });
  externalize(mimeTree, parts(root), msg.id);
  return described(mimeTree);
}

/** From the message model (model-tree.ts); composed where the model path cannot tell. */
export function describeMessage(msg: MailMessage): MessageDescription {
  const model = modelTree(msg);
  if (!model) return describeComposed(msg);
  externalize(model.mimeTree, model.layout, msg.id);
  return described(model.mimeTree, modelEnvelope(model.mimeTree.parsedHeader));
}

/** Header that marks a placeholder; a full sync tries such messages again. */
export const unconvertibleHeader = 'X-Mailbridge-Unconvertible';

/**
 * The small text/plain message served instead of one the bridge could not convert (one odd
 * message must not stop its folder from syncing). Built from the few fields that are plain
 * strings, and deterministic: the same bytes whenever it is built again.
 */
export function placeholderBytes(msg: MailMessage): Buffer {
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/[\r\n]+/g, ' ') : '');
  const date = new Date(text(msg.receivedAt));
  const lines = [
    `Message-ID: ${text(msg.messageId) || `<${text(msg.id)}@mailbridge.invalid>`}`,
    `Date: ${Number.isNaN(date.getTime()) ? 'Thu, 01 Jan 1970 00:00:00 +0000' : date.toUTCString().replace('GMT', '+0000')}`,
    `From: ${text(msg.from?.address) || 'unknown@mailbridge.invalid'}`,
    `Subject: =?UTF-8?B?${Buffer.from(`[not converted] ${text(msg.subject)}`).toString('base64')}?=`,
    `${unconvertibleHeader}: yes`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    "mailbridge could not convert this message from the mail vendor's data into an email.",
    'It is tried again at the next full sync, and then appears as a new message; read it',
    `in webmail meanwhile. Vendor message id: ${text(msg.id)}`,
    '',
  ];
  return Buffer.from(lines.join('\r\n'));
}

/**
 * describeMessage (or `describe`), or for a message that cannot be converted, its
 * placeholder's description.
 */
export function describeMailMessage(
  msg: MailMessage,
  describe: (msg: MailMessage) => MessageDescription = describeMessage,
): MessageDescription & { unconvertible?: string } {
  let problem = msg.unreadable;
  if (problem === undefined) {
    try {
      return describe(msg);
    } catch (err) {
      problem = (err as Error).message;
    }
  }
  return { ...describeRaw(placeholderBytes(msg)), unconvertible: problem };
}

/**
 * The tree a message's body sections are served from: the message composed, as its bytes are
 * made (the model path gives the same tree, but composing is what decides the bytes).
 */
export function contentTree(msg: MailMessage): MimeTreeNode {
  return describeMailMessage(msg, describeComposed).mimeTree;
}

/** The description of a message that exists only as bytes (a draft a client appended). */
export function describeRaw(raw: Buffer): MessageDescription {
  return described(indexer.parseMimeTree(raw));
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
