/**
 * Response lines written straight into large Buffers: text as latin1 (imap-core's composer
 * writes compiled text as 'binary', one byte a character) and bytes copied in. A FETCH of
 * thousands of messages then allocates a few chunks instead of strings for every message, their
 * joins and their encodings. Large bytes (a message's body) are shared instead: taken as the
 * Buffers they are, between the chunks' pieces.
 */
/** Text up to this length is copied character by character (each to its low byte, as latin1 does). */
const shortText = 32;
/** Under half of Buffer.poolSize: allocUnsafe takes it from the pool. */
const firstChunkSize = 2048;

export class WireChunks {
  private chunk: Buffer;
  /** Where the next byte goes. */
  private at = 0;
  /** Where the line being written starts. */
  private lineStart = 0;
  /** Where the lines not taken yet start. */
  private from = 0;
  /** Complete lines of earlier chunks and shared Buffers, not taken yet. */
  private full: Buffer[] = [];
  /** The line being written's pieces before its last shared Buffer, that Buffer included. */
  private linePieces: Buffer[] = [];

  /**
   * The first chunk is small: Node hands it out of its shared pool, where a chunk of
   * `chunkSize` would be a new allocation for every FETCH of one message, and such
   * allocations made the garbage collector run often (a third of the CPU of a session
   * fetching whole messages one by one). Lines past it go into chunks of `chunkSize`.
   */
  constructor(private readonly chunkSize = 64 * 1024) {
    this.chunk = Buffer.allocUnsafe(Math.min(chunkSize, firstChunkSize));
  }

  text(text: string): void {
    this.room(text.length);
    if (text.length > shortText) {
      this.at += this.chunk.write(text, this.at, 'latin1');
      return;
    }
    // most of a FETCH line's text is a few characters at a time: a loop costs less than a call into the encoder
    const chunk = this.chunk;
    for (let i = 0; i < text.length; i++) chunk[this.at++] = text.charCodeAt(i);
  }

  /** Copies `source`'s bytes. */
  bytes(source: Uint8Array): void {
    this.room(source.length);
    this.chunk.set(source, this.at);
    this.at += source.length;
  }

  /** Puts `source` in the line as it is: taken by reference, so it must not change until written. */
  share(source: Buffer): void {
    if (!source.length) return;
    if (this.lineStart > this.from) this.full.push(this.chunk.subarray(this.from, this.lineStart));
    if (this.at > this.lineStart) this.linePieces.push(this.chunk.subarray(this.lineStart, this.at));
    this.linePieces.push(source);
    this.from = this.lineStart = this.at;
  }

  /** Ends the line being written with CRLF. */
  endLine(): void {
    this.text('\r\n');
    // the line's text after its last shared Buffer, from `from` on, follows these pieces
    if (this.linePieces.length) {
      this.full.push(...this.linePieces);
      this.linePieces = [];
    }
    this.lineStart = this.at;
  }

  /** Forgets what was written of the line being written. */
  dropLine(): void {
    this.at = this.lineStart;
    this.linePieces = [];
  }

  /**
   * The complete lines written since the last call, in pieces the last of which ends with a
   * line's CRLF (none when nothing was written): chunks of text, and Buffers shared as they are.
   * The Buffers are the caller's: nothing is written in them again.
   */
  take(): Buffer[] {
    const out = this.full;
    this.full = [];
    if (this.lineStart > this.from) out.push(this.chunk.subarray(this.from, this.lineStart));
    this.from = this.lineStart;
    return out;
  }

  /** Makes room for `length` bytes: a new chunk, which the line being written moves to. */
  private room(length: number): void {
    if (this.at + length <= this.chunk.length) return;
    const old = this.chunk;
    if (this.lineStart > this.from) this.full.push(old.subarray(this.from, this.lineStart));
    const partial = this.at - this.lineStart;
    this.chunk = Buffer.allocUnsafe(Math.max(this.chunkSize, partial + length));
    old.copy(this.chunk, 0, this.lineStart, this.at);
    this.at = partial;
    this.lineStart = 0;
    this.from = 0;
  }
}
