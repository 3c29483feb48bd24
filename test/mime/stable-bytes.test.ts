import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { MailMessage } from '../../src/domain/message';
import { buildMessage, describeRecord } from '../../src/mime';
import { readStoredMessage } from '../../src/store/stored-message';
import type { VendorMessage } from '../../src/upstream/types';
import { toMailMessage } from '../../src/upstream/vendor-message';

/**
 * A UID's bytes never change, across the move to the bridge's own message model.
 * earlier-rows.json.gz holds 62 message_cache rows as the versions before the model stored
 * them (the vendor's JSON, with a composition on every other corpus message, and one with a
 * field of the wrong type), each with the SHA-256 of the bytes, compiled summary and header
 * lines that version's composer (commit b60d178) made of it.
 */

interface EarlierRow {
  message: VendorMessage & { composition?: MailMessage['composition'] };
  /** Null where that version served a placeholder. */
  bytes: string | null;
  summary: string;
  header: string;
}

const rows = JSON.parse(
  zlib.gunzipSync(fs.readFileSync(path.join(__dirname, 'earlier-rows.json.gz'))).toString('utf8'),
) as EarlierRow[];

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function served(msg: MailMessage) {
  const record = describeRecord(msg);
  let bytes: string | null = null;
  if (!record.unconvertible) bytes = sha(buildMessage(msg, new Map()));
  return { bytes, summary: sha(record.summary), header: sha(record.header) };
}

const expected = ({ bytes, summary, header }: EarlierRow) => ({ bytes, summary, header });

describe('bytes of messages described before the message model', () => {
  test('the fixture covers compositions, message/* parts and a placeholder', () => {
    expect(rows.length).toBe(62);
    expect(rows.filter((r) => r.message.composition).length).toBe(30);
    expect(rows.some((r) => Object.keys(r.message.composition?.messageParts ?? {}).length)).toBe(true);
    expect(rows.filter((r) => r.bytes === null).length).toBe(1);
  });

  test('an earlier row read from the store composes to the same bytes', () => {
    for (const row of rows) expect(served(readStoredMessage(JSON.stringify(row.message)))).toEqual(expected(row));
  });

  test('the same vendor JSON read through the connector composes to the same bytes', () => {
    for (const row of rows) {
      const { composition, ...vendor } = row.message;
      const msg = toMailMessage(vendor);
      expect(served(composition ? { ...msg, composition } : msg)).toEqual(expected(row));
    }
  });

  test('a row in the model reads back as it was written', () => {
    for (const row of rows) {
      const msg = toMailMessage(row.message);
      expect(readStoredMessage(JSON.stringify(msg))).toEqual(JSON.parse(JSON.stringify(msg)));
    }
  });
});
