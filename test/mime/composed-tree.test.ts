import { describe, expect, test } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { composeMessage, serializeMimeNode } from '../../src/mime/compose';
import { composedTree } from '../../src/mime/composed-tree';
import { createIndexer } from '../../src/mime/imap-indexer';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { corpora } from './corpora';
import { richVendorMessage } from './fixtures';

/**
 * Describing reads the indexer's tree off the composed message (composed-tree.ts) instead of
 * parsing the serialized bytes: for every message of the sandbox corpus, the real-world shapes
 * of the round trip, the rows stored by earlier versions and the rich fixture, both trees are
 * the same, bodies included, so RFC822.SIZE, ENVELOPE, BODYSTRUCTURE and the header lines are
 * the bytes parsing would give.
 */

const indexer = createIndexer();

function parsedTree(msg: MailMessage) {
  return indexer.parseMimeTree(serializeMimeNode(composeMessage(msg, () => Buffer.alloc(0)).root));
}

describe('the composed tree is the parsed tree', () => {
  for (const [name, messages] of Object.entries(corpora)) {
    test(name, () => {
      const all = messages();
      expect(all.length).toBeGreaterThan(0);
      for (const msg of all) {
        const tree = composedTree(composeMessage(msg, () => Buffer.alloc(0)).root);
        expect(tree, msg.id).not.toBeNull();
        expect(tree, msg.id).toEqual(parsedTree(msg));
      }
    });
  }

  test('no tree for a body the parser would read differently (describing parses the bytes then)', () => {
    const msg = toMailMessage(richVendorMessage());
    const { root } = composeMessage(msg, () => Buffer.alloc(0));
    expect(composedTree(root)).not.toBeNull(); // gives every multipart its boundary
    const leaves = (n: typeof root): Array<typeof root> => (n.multipart ? n.childNodes.flatMap(leaves) : [n]);
    const text = leaves(root).find((n) => n.getHeader('Content-Type')?.toString().startsWith('text/plain'))!;
    // a bare line feed (the parser rewrites it), then a line that is the enclosing delimiter
    for (const content of ['one\ntwo', `one\r\n--${root.boundary}\r\ntwo`]) {
      text.setContent(content);
      text.setHeader('Content-Transfer-Encoding', '8bit');
      expect(composedTree(root)).toBeNull();
    }
  });
});
