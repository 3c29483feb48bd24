import { describe, expect, test } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { buildMessage, describeRecord, metadataRecord } from '../../src/mime';
import { describeComposed, describeMessage } from '../../src/mime/describe';
import { createIndexer } from '../../src/mime/imap-indexer';
import { modelTree } from '../../src/mime/model-tree';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { corpora } from './corpora';
import { richVendorMessage } from './fixtures';

/**
 * Describing makes a message's tree from its model (model-tree.ts) instead of composing it
 * with nodemailer: for every message of the sandbox corpus, the round trip's corpora, the rows
 * stored by earlier versions and the rich fixture, the model path lays the message out and
 * gives the tree composing gives (bodies included), so RFC822.SIZE, ENVELOPE, BODYSTRUCTURE,
 * the stored row and the header lines are the same, and so are the bytes served for the UID.
 */

const indexer = createIndexer();

describe('described from the model, as composed', () => {
  for (const [name, messages] of Object.entries(corpora)) {
    test(name, () => {
      const all = messages();
      expect(all.length).toBeGreaterThan(0);
      for (const msg of all) {
        expect(modelTree(msg), msg.id).not.toBeNull();
        const model = describeMessage(msg);
        const composed = describeComposed(msg);
        expect(model, msg.id).toEqual(composed);
        expect(metadataRecord(msg, model), msg.id).toEqual(metadataRecord(msg, composed));
        // the composed bytes parse to that size and those header lines
        const parsed = indexer.parseMimeTree(buildMessage(msg, new Map()));
        expect(model.mimeTree.header, msg.id).toEqual(parsed.header);
      }
    });
  }

  test('a message the model path cannot tell is composed and parsed: a body holding its own delimiter', () => {
    const rich = toMailMessage(richVendorMessage());
    const probe = modelTree(rich);
    expect(probe).not.toBeNull();
    // the delimiter line of the root multipart, inside the text body
    const boundary = (probe!.mimeTree.parsedHeader['content-type'] as { params: { boundary: string } }).params.boundary;
    const msg: MailMessage = { ...rich, body: { text: `one\r\n--${boundary}\r\ntwo`, html: rich.body!.html } };
    expect(modelTree(msg)).toBeNull();
    const served = indexer.parseMimeTree(buildMessage(msg, new Map()));
    const record = describeRecord(msg);
    expect(record.header).toBe(JSON.stringify(served.header));
    expect(record.size).toBe(describeComposed(msg).size);
  });
});
