import { Transform, type TransformCallback } from 'node:stream';
import type { ReadBounds } from './imap-indexer';

/**
 * Attachments are served as base64 in 76-character lines joined by CRLF, the last line without
 * a line break (nodemailer's layout). Every full line encodes exactly 57 bytes, so the encoded
 * size and any encoded offset follow from the raw byte count alone: sizes are known without
 * downloading, and a partial fetch only reads the raw bytes under the requested window.
 */

const charsPerLine = 76;
const rawPerLine = 57;
const encodedPerLine = charsPerLine + 2;

export function base64Lines(rawBytes: number): number {
  return Math.ceil((Math.ceil(rawBytes / 3) * 4) / charsPerLine);
}

export function base64EncodedSize(rawBytes: number): number {
  if (rawBytes <= 0) return 0;
  return Math.ceil(rawBytes / 3) * 4 + 2 * (base64Lines(rawBytes) - 1);
}

/** Raw bytes encoded per string: its text stays small enough for V8's young generation. */
const rawPerChunk = rawPerLine * 1024;

/**
 * Encodes in place the `rawLength` bytes at the end of `out`, which is base64EncodedSize of
 * them long, into all of their base64 lines, the bytes a window over the whole of them gives.
 * Each chunk's text is written at the end of its lines' place, whose start is never past the
 * raw bytes not read yet, and then each line moves to the front, with a CRLF after it: no
 * other Buffer, and no string larger than a chunk's.
 */
export function encodeTail(out: Buffer, rawLength: number): void {
  const size = out.length;
  const tail = size - rawLength;
  for (let start = 0; start < rawLength; start += rawPerChunk) {
    const end = Math.min(start + rawPerChunk, rawLength);
    const text = out.toString('base64', tail + start, tail + end);
    const lines = Math.ceil(text.length / charsPerLine);
    // the last line of all has no CRLF after it
    const breaks = end === rawLength ? lines - 1 : lines;
    const at = (start / rawPerLine) * encodedPerLine;
    const from = at + 2 * breaks;
    out.write(text, from, 'latin1');
    for (let line = 0; line < lines; line++) {
      const to = at + line * encodedPerLine;
      const source = from + line * charsPerLine;
      out.copyWithin(to, source, Math.min(source + charsPerLine, from + text.length));
      if (line < breaks) {
        out[to + charsPerLine] = 0x0d;
        out[to + charsPerLine + 1] = 0x0a;
      }
    }
  }
}

export interface RawWindow {
  /** Raw byte range [start, end) to read. */
  start: number;
  end: number;
  /** Index of the first encoded line the raw range starts. */
  firstLine: number;
  /** Encoded bytes to drop before the window starts, and the window length. */
  skip: number;
  length: number;
}

/** The raw byte range behind an encoded window; null when the window is empty. */
export function rawWindow(rawBytes: number, bounds: ReadBounds): RawWindow | null {
  const total = base64EncodedSize(rawBytes);
  const from = Math.min(Math.max(bounds.startFrom, 0), total);
  const to = bounds.maxLength > 0 ? Math.min(from + bounds.maxLength, total) : total;
  if (to <= from) return null;
  const firstLine = Math.floor(from / encodedPerLine);
  const lastLine = Math.floor((to - 1) / encodedPerLine);
  return {
    start: firstLine * rawPerLine,
    end: Math.min((lastLine + 1) * rawPerLine, rawBytes),
    firstLine,
    skip: from - firstLine * encodedPerLine,
    length: to - from,
  };
}

/**
 * Encodes raw bytes that start at line `window.firstLine` and emits only the window.
 * `outputBytes` is what imap-core's rebuild() reads to advance its position.
 */
export class Base64WindowEncoder extends Transform {
  outputBytes = 0;
  private pending: Buffer = Buffer.alloc(0);
  private line: number;
  private skip: number;
  private remaining: number;
  private readonly totalLines: number;

  constructor(rawBytes: number, window: RawWindow) {
    super();
    this.totalLines = base64Lines(rawBytes);
    this.line = window.firstLine;
    this.skip = window.skip;
    this.remaining = window.length;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const whole = buf.length - (buf.length % rawPerLine);
    this.pending = Buffer.from(buf.subarray(whole));
    this.emitLines(buf.subarray(0, whole));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.emitLines(this.pending);
    this.pending = Buffer.alloc(0);
    done();
  }

  private emitLines(raw: Buffer): void {
    if (!raw.length || this.remaining <= 0) return;
    const parts: string[] = [];
    for (let off = 0; off < raw.length; off += rawPerLine) {
      parts.push(raw.toString('base64', off, Math.min(off + rawPerLine, raw.length)));
      if (++this.line < this.totalLines) parts.push('\r\n');
    }
    let out = Buffer.from(parts.join(''), 'latin1');
    if (this.skip) {
      const dropped = Math.min(this.skip, out.length);
      out = out.subarray(dropped);
      this.skip -= dropped;
    }
    if (out.length > this.remaining) out = out.subarray(0, this.remaining);
    this.remaining -= out.length;
    this.outputBytes += out.length;
    if (out.length) this.push(out);
  }
}
