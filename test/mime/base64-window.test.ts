import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import * as base64 from 'nodemailer/lib/base64';
import { Base64WindowEncoder, base64EncodedSize, encodeTail, rawWindow } from '../../src/mime/base64-window';
import { bytesOf } from './fixtures';

async function encodeWindow(raw: Buffer, startFrom: number, maxLength: number): Promise<Buffer> {
  const w = rawWindow(raw.length, { startFrom, maxLength });
  if (!w) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  const src = raw.subarray(w.start, w.end);
  // odd chunk sizes: the encoder must not depend on how the source splits its bytes
  const parts = [src.subarray(0, 5), src.subarray(5, 1000), src.subarray(1000)];
  for await (const c of Readable.from(parts).pipe(new Base64WindowEncoder(raw.length, w))) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('base64 window', () => {
  it('sizes match nodemailer output for every length around line and group edges', () => {
    for (let n = 0; n < 400; n++)
      expect(base64EncodedSize(n)).toBe(base64.wrap(base64.encode(Buffer.alloc(n)), 76).length);
  });

  it('any window equals the slice of the full encoding', async () => {
    for (const n of [1, 56, 57, 58, 114, 1000, 5701]) {
      const raw = bytesOf(`w${n}`, n);
      const full = Buffer.from(base64.wrap(base64.encode(raw), 76), 'latin1');
      for (const [s, l] of [
        [0, 0],
        [0, 1],
        [1, 77],
        [77, 2],
        [78, 78],
        [full.length - 3, 10],
        [Math.floor(full.length / 2), 0],
      ]) {
        expect((await encodeWindow(raw, s, l)).equals(full.subarray(s, l ? s + l : undefined)), `${n} ${s}+${l}`).toBe(
          true,
        );
      }
    }
  });

  it('the whole text encoded in place is what the encoder gives, around line, group and chunk edges', async () => {
    const sizes = [...Array.from({ length: 240 }, (_, i) => i), 1000, 5701, 58_367, 58_368, 58_369, 116_736, 1_000_003];
    for (const n of sizes) {
      const raw = bytesOf(`t${n}`, n);
      const out = Buffer.alloc(base64EncodedSize(n));
      raw.copy(out, out.length - n);
      encodeTail(out, n);
      expect(out.equals(await encodeWindow(raw, 0, 0)), String(n)).toBe(true);
    }
  });
});
