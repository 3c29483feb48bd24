import crypto from 'node:crypto';
import MimeNode from 'nodemailer/lib/mime-node';
import { describe, expect, test, vi } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { buildMessage, describeRecord } from '../../src/mime';
import type { MemoizedEncodeHeaderValue } from '../../src/mime/compose';
import { corpora } from './corpora';

/**
 * Describing remembers per-field work across messages (compose.ts: the encoded address
 * headers). For every message of every corpus, the stored row (RFC822.SIZE, compiled
 * ENVELOPE/BODYSTRUCTURE, header lines) and the served bytes are the same as nodemailer's own
 * encoding gives them, whether the message is the first to use a value or not.
 */

const proto = MimeNode.prototype as unknown as { encodeHeaderValue: MemoizedEncodeHeaderValue['original'] };
const memoized = proto.encodeHeaderValue as MemoizedEncodeHeaderValue;

function served(msg: MailMessage) {
  const { size, summary, header, unconvertible } = describeRecord(msg);
  return { size, summary, header, unconvertible, bytes: buildMessage(msg, new Map()).toString('latin1') };
}

function uncached(messages: MailMessage[]) {
  proto.encodeHeaderValue = memoized.original;
  try {
    return messages.map(served);
  } finally {
    proto.encodeHeaderValue = memoized;
  }
}

describe('described with remembered encodings, byte for byte as without', () => {
  test('the memo is in place', () => {
    expect(typeof memoized.original).toBe('function');
    expect(memoized).not.toBe(memoized.original);
  });

  for (const [name, messages] of Object.entries(corpora)) {
    test(name, () => {
      const all = messages();
      const expected = uncached(all);
      // twice: the first pass fills the table, the second reads every value from it
      for (let pass = 0; pass < 2; pass++)
        for (const [i, msg] of all.entries()) expect(served(msg), msg.id).toEqual(expected[i]);
    });
  }

  test("composing draws no random boundaries: every node has the root's", () => {
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
