import { expect, test } from 'vitest';
import { WireChunks } from '../../src/imap/wire-chunks';

/**
 * FETCH lines are written into chunks (src/imap/wire-chunks.ts): what is taken must be every
 * ended line once, in order, byte for byte, however the lines fall on chunk boundaries, and a
 * Buffer taken must not change when writing goes on.
 */

test('taken chunks hold every ended line once, in order, across chunk boundaries', () => {
  const out = new WireChunks(64);
  const source = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz\u00e9\u00ff', 'latin1');
  let expected = '';
  const taken: Buffer[] = [];
  const copies: string[] = [];
  for (let i = 0; i < 500; i++) {
    // lines of 3 to over 200 bytes: some fit a chunk's rest, some move to the next, some are larger than a chunk
    // characters beyond latin1 are written as their low byte, as latin1 (and imap-core's 'binary') does
    const text = `* ${i} FETCH (UID ${i} \u00fc${i % 2 ? '日本' : ''}`;
    const from = i % source.length;
    const to = Math.min(source.length, from + (i % 7) * 5);
    out.text(text);
    out.bytes(source.subarray(from, to));
    if (i % 11 === 0) out.text('x'.repeat(150 + (i % 60)));
    const line = text + source.toString('latin1', from, to) + (i % 11 === 0 ? 'x'.repeat(150 + (i % 60)) : '');
    // every fifth line is dropped: nothing of it is taken
    if (i % 5 === 3) {
      out.dropLine();
    } else {
      out.endLine();
      expected += Buffer.from(`${line}\r\n`, 'latin1').toString('latin1');
    }
    if (i % 13 === 0)
      for (const chunk of out.take()) {
        taken.push(chunk);
        copies.push(chunk.toString('latin1'));
      }
  }
  for (const chunk of out.take()) {
    taken.push(chunk);
    copies.push(chunk.toString('latin1'));
  }
  expect(taken.length).toBeGreaterThan(50);
  for (const chunk of taken) expect(chunk.subarray(-2).toString()).toBe('\r\n');
  // what was taken early is unchanged by what was written after it
  expect(taken.map((c) => c.toString('latin1'))).toEqual(copies);
  expect(copies.join('')).toBe(expected);
  expect(out.take()).toEqual([]);
});

test('a dropped line leaves nothing, also after it moved to a new chunk', () => {
  const out = new WireChunks(16);
  out.text('first');
  out.endLine();
  out.text('a line longer than the chunk it started in');
  out.dropLine();
  out.text('second');
  out.endLine();
  expect(
    out
      .take()
      .map((c) => c.toString('latin1'))
      .join(''),
  ).toBe('first\r\nsecond\r\n');
});

test('shared Buffers are taken as they are, in their place among the lines, and go with a dropped line', () => {
  const out = new WireChunks(16);
  const body = Buffer.from('the kept bytes of a message');
  const other = Buffer.from('more bytes');
  out.text('* 1 FETCH (BODY[] {27}\r\n');
  out.share(body);
  out.text(')');
  out.endLine();
  out.text('* 2 FETCH (BODY[] {10}\r\n');
  out.share(other);
  out.dropLine();
  out.text('* 3 FETCH (UID 3 BODY[] {37}\r\n');
  out.share(body);
  out.share(other);
  out.text(' UID 3');
  out.text(' and a text longer than a chunk)');
  out.endLine();
  const taken = out.take();
  expect(taken.filter((b) => b === body)).toHaveLength(2);
  expect(taken.filter((b) => b === other)).toHaveLength(1);
  expect(Buffer.concat(taken).toString()).toBe(
    `* 1 FETCH (BODY[] {27}\r\n${body})\r\n* 3 FETCH (UID 3 BODY[] {37}\r\n${body}${other} UID 3 and a text longer than a chunk)\r\n`,
  );
  expect(taken.at(-1)?.subarray(-2).toString()).toBe('\r\n');
  expect(out.take()).toEqual([]);
});
