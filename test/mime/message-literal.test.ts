import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { buildMessage } from '../../src/mime/compose';
import { contentTree, describeRaw, externalAttachments, externalId } from '../../src/mime/describe';
import { createAttachmentStorage, type AttachmentStorage } from '../../src/mime/attachment-storage';
import { createIndexer, type MimeTreeNode } from '../../src/mime/imap-indexer';
import { bodyLiteral } from '../../src/mime/message-literal';
import { corpora } from './corpora';
import { bytesOf } from './fixtures';

/**
 * A FETCH of a whole message (BODY[], RFC822) or of its body (BODY[TEXT], RFC822.TEXT) is
 * written from the tree's Buffers and the attachments' kept encoded bytes
 * (mime/message-literal.ts). A UID's bytes never change: they must be imap-core's, the
 * streams' (indexer rebuild() with attachments read through AttachmentStorage), and for the
 * whole message the composed message's, for every message of the corpora: attachments,
 * non-ASCII text, nested message/rfc822, drafts' parsed bytes with preambles and padding.
 */

/** Each attachment's file: deterministic bytes of its declared size. */
function storageFor(messages: MailMessage[]): AttachmentStorage {
  const sizes = new Map(messages.flatMap((m) => (m.attachments ?? []).map((a) => [`${m.id}/${a.id}`, a.size])));
  return createAttachmentStorage({
    open: async (messageUid, attachmentId) => {
      const key = `${messageUid}/${attachmentId}`;
      return Readable.from([bytesOf(key, sizes.get(key) ?? 0)]);
    },
  });
}

async function streamed(contents: ReturnType<ReturnType<typeof createIndexer>['getContents']>): Promise<Buffer> {
  if (typeof contents === 'string') return Buffer.from(contents, 'binary');
  const chunks: Buffer[] = [];
  for await (const chunk of contents.value) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The fast path's bytes of a section, and the streams' (`textOnly`: BODY[TEXT]). */
async function bothWays(tree: MimeTreeNode, storage: AttachmentStorage, textOnly: boolean) {
  const ids = externalAttachments(tree).map(externalId);
  await storage.prefetch(ids);
  const encoded = await storage.encodedBytes(ids);
  const literal = encoded && bodyLiteral(tree, textOnly, (id) => encoded.get(id));
  const indexer = createIndexer(storage);
  const stream = await streamed(indexer.getContents(tree, textOnly ? { type: 'text' } : false));
  return { literal, stream, size: indexer.getSize(tree, textOnly) };
}

/** What the corpus covers, so that a corpus losing a shape fails here. */
interface Shapes {
  attachments: number;
  nonAscii: number;
  nested: number;
}

const shapes: Shapes = { attachments: 0, nonAscii: 0, nested: 0 };

function countShapes(msg: MailMessage, tree: MimeTreeNode): void {
  if (externalAttachments(tree).length) shapes.attachments++;
  if (/[^\x00-\x7f]/.test(`${msg.subject}${msg.body?.text}${msg.body?.html}`)) shapes.nonAscii++;
  const nested = (n: MimeTreeNode): boolean => !!n.message || (n.childNodes ?? []).some(nested);
  if (nested(tree)) shapes.nested++;
}

/**
 * The bytes a client gets of the section both ways (imap-core cuts or pads its stream to the
 * length it announced, getSize); the fast path may leave a message to the streams only where
 * the stream is not that long. `fast`: it must not.
 */
async function expectSameBytes(tree: MimeTreeNode, storage: AttachmentStorage, what: string, fast = true) {
  let whole: Buffer | null = null;
  for (const textOnly of [false, true]) {
    const name = `${what} ${textOnly ? 'TEXT' : 'whole'}`;
    const { literal, stream, size } = await bothWays(tree, storage, textOnly);
    if (!literal) {
      expect(fast, name).toBe(false);
      expect(stream.length, name).not.toBe(size);
      continue;
    }
    const bytes = Buffer.concat(literal.bytes);
    expect(literal.length, name).toBe(bytes.length);
    expect(bytes.length, name).toBe(size);
    expect(bytes.equals(stream), name).toBe(true);
    if (!textOnly) whole = bytes;
  }
  return whole;
}

describe('a whole message from kept bytes is the bytes of the streams and of composing', () => {
  for (const [name, messages] of Object.entries(corpora)) {
    test(name, async () => {
      const all = messages();
      const storage = storageFor(all);
      for (const msg of all) {
        const tree = contentTree(msg);
        const bytes = await expectSameBytes(tree, storage, msg.id);
        countShapes(msg, tree);
        // the message as composed with its attachments' bytes (a placeholder is no composition)
        if (!tree.header.some((h) => h.startsWith('X-Mailbridge-Unconvertible'))) {
          const files = new Map((msg.attachments ?? []).map((a) => [a.id, bytesOf(`${msg.id}/${a.id}`, a.size)]));
          expect(bytes?.equals(buildMessage(msg, files)), msg.id).toBe(true);
        }
      }
    });
  }

  test('the corpora hold attachments, non-ASCII text and nested messages', () => {
    expect(shapes.attachments).toBeGreaterThan(50);
    expect(shapes.nonAscii).toBeGreaterThan(50);
    expect(shapes.nested).toBeGreaterThan(0);
  });

  test('drafts: parsed bytes with a preamble, padded delimiters, an epilogue, a nested message, no final line break', async () => {
    const nested = [
      'Subject: inner',
      'Content-Type: multipart/mixed; boundary="in"',
      '',
      '--in',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      'Grüße aus dem Inneren',
      '--in--',
      '',
    ].join('\r\n');
    const drafts = [
      [
        'From: a@example.com',
        'Subject: =?utf-8?q?K=C3=A4se?=',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        'a preamble line',
        '--b1  ',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Käse und Brot',
        '--b1\t',
        'Content-Type: message/rfc822',
        '',
        nested,
        '--b1--  ',
        'the epilogue',
        '',
      ].join('\r\n'),
      'Subject: short\r\n\r\nno line break at the end',
      'Subject: lines\n\nbare\nline feeds\n',
      'Subject: empty body\r\n\r\n',
      'Content-Type: multipart/alternative; boundary=x\r\n\r\n--x\r\n\r\n--x\r\nContent-Type: text/html\r\n\r\n<p>ü</p>\r\n--x--',
    ];
    const storage = storageFor([]);
    // the bare line feeds' body is a line longer than imap-core announces: that one stays with the streams
    for (const draft of drafts)
      await expectSameBytes(describeRaw(Buffer.from(draft)).mimeTree, storage, draft, !draft.includes('bare'));
  });
});

test('an attachment not at hand is left to the streams', async () => {
  const msg = corpora['the sandbox corpus']().find((m) => m.attachments?.some((a) => a.size > 0))!;
  const tree = contentTree(msg);
  const storage = storageFor([msg]);
  // nothing prefetched: no bytes to write from
  expect(await storage.encodedBytes(externalAttachments(tree).map(externalId))).toBeNull();
  expect(bodyLiteral(tree, false, () => undefined)).toBeNull();
});
