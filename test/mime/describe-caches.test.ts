import crypto from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { describeRecord, metadataRecord } from '../../src/mime';
import { describeComposed, describeMessage } from '../../src/mime/describe';
import { corpora } from './corpora';

/**
 * Describing remembers per-field work across messages (header-block.ts: written header
 * fields; header-fields.ts: parsed ones; model-envelope.ts and compiled-summary.ts: their
 * ENVELOPE lists and wire text; part-tree.ts: parsed part headers). For every message of every
 * corpus, the stored row (RFC822.SIZE, compiled ENVELOPE/BODYSTRUCTURE, header lines) is the
 * one composing the message with nodemailer gives, whether the message is the first to use a
 * value or not.
 */

const row = ({ size, summary, header, unconvertible }: ReturnType<typeof describeRecord>) => ({
  size,
  summary,
  header,
  unconvertible,
});

describe('described with remembered encodings, byte for byte as composed', () => {
  for (const [name, messages] of Object.entries(corpora)) {
    test(name, () => {
      const all = messages();
      const expected = all.map((msg: MailMessage) => row(metadataRecord(msg, describeComposed(msg))));
      // twice: the first pass fills the table, the second reads every value from it
      for (let pass = 0; pass < 2; pass++)
        for (const [i, msg] of all.entries()) expect(row(describeRecord(msg)), msg.id).toEqual(expected[i]);
    });
  }

  test('a second message with the same correspondents reuses their ENVELOPE lists', () => {
    const [msg] = corpora['the rich fixture, with and without a composition']();
    const [first, second] = [describeMessage(msg), describeMessage({ ...msg, id: 'another', subject: 'Other' })];
    for (const i of [2, 5, 6]) {
      expect(first.envelope[i], `ENVELOPE item ${i}`).not.toBeNull();
      expect(second.envelope[i], `ENVELOPE item ${i}`).toBe(first.envelope[i]);
    }
  });

  test('fields written without the encoder are the lines the encoder writes, at every edge', () => {
    const [msg] = corpora['the rich fixture, with and without a composition']();
    // printable ASCII short enough for one line is written as it is; quotes, encoded-word
    // openers, control characters, 76 characters and more, ids without brackets are not
    const long = 'x'.repeat(76 - 'Subject: '.length);
    const subjects = ['Plain words', 'Say "hi"', 'a =?x?= b', 'tab\there', ' ', long.slice(1), long, `${long} y`];
    const ids = ['<short@example.test>', 'no-brackets@example.test', `<${'i'.repeat(70)}@example.test>`];
    for (const [i, subject] of subjects.entries())
      for (const messageId of ids) {
        const variant = { ...msg, id: `edge-${i}-${messageId.length}`, subject, messageId };
        const composedRow = row(metadataRecord(variant, describeComposed(variant)));
        expect(row(describeRecord(variant)), JSON.stringify([subject, messageId])).toEqual(composedRow);
      }
  });

  test('describing draws no random bytes: no MIME node is made', () => {
    const all = corpora['the sandbox corpus']().slice(0, 50);
    const draws = vi.spyOn(crypto, 'randomBytes');
    try {
      for (const msg of all) describeRecord(msg);
      expect(draws).not.toHaveBeenCalled();
    } finally {
      draws.mockRestore();
    }
  });
});
