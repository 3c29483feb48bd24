import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { Lane } from '../domain/connector';
import { Base64WindowEncoder, base64EncodedSize, encodeTail, rawWindow, type RawWindow } from './base64-window';
import { parseExternalId, type AttachmentRef } from './describe';
import {
  createIndexer,
  type ContentSelector,
  type ImapAttachmentStorage,
  type MimeTreeNode,
  type ReadBounds,
  type StoredAttachmentInfo,
} from './imap-indexer';

/**
 * The `attachmentStorage` imap-core's indexer streams external MIME nodes from. Bytes come
 * from an AttachmentSource (the vendor's raw download) once, then from a byte cache, so a
 * client re-fetching a message does not download it again. Partial fetches read only the
 * raw range under the requested window.
 */

export interface AttachmentSource {
  /** `lane`: who waits for the bytes (the vendor request gate's lane). */
  open(messageUid: string, attachmentId: string, lane: Lane): Promise<Readable>;
}

/** Raw attachment bytes by key; `read` ranges are [start, end). */
export interface ByteCache {
  has(key: string): boolean;
  put(key: string, bytes: Buffer): Promise<void>;
  /** null when the entry is gone (evicted meanwhile). */
  read(key: string, start: number, end: number): Promise<Readable | null>;
  /** Reads all of an entry's `length` bytes into `target` at `offset`; false when it is gone or shorter. */
  readInto(key: string, target: Buffer, offset: number, length: number): Promise<boolean>;
}

export interface AttachmentStorageOptions {
  /** On-disk cache directory; without it bytes are kept in memory. */
  cacheDir?: string;
  maxCacheBytes?: number;
  /**
   * The vendor sent a different byte count than size_bytes said. Sizes were already promised
   * to clients (RFC822.SIZE, literal lengths), so the bytes are cut or zero-padded to fit.
   */
  onSizeMismatch?(ref: AttachmentRef, actual: number): void;
}

const defaultMaxCacheBytes = 512 * 1024 * 1024;

export class MemoryByteCache implements ByteCache {
  private readonly lru: LRUCache<string, Buffer>;

  constructor(maxBytes = defaultMaxCacheBytes) {
    this.lru = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(b.length, 1) });
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    this.lru.set(key, bytes);
  }

  async read(key: string, start: number, end: number): Promise<Readable | null> {
    const bytes = this.lru.get(key);
    return bytes ? Readable.from([bytes.subarray(start, end)]) : null;
  }

  async readInto(key: string, target: Buffer, offset: number, length: number): Promise<boolean> {
    const bytes = this.lru.get(key);
    if (!bytes || bytes.length < length) return false;
    bytes.copy(target, offset, 0, length);
    return true;
  }
}

/** Files named by a hash of the key; least recently used files go first past `maxBytes`. */
export class DiskByteCache implements ByteCache {
  /** key file name -> size, in use order (oldest first). */
  private readonly entries = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes = defaultMaxCacheBytes,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.bin'))
      .map((f) => ({ f, st: fs.statSync(path.join(dir, f)) }))
      .sort((a, b) => a.st.mtimeMs - b.st.mtimeMs);
    for (const { f, st } of files) this.remember(f, st.size);
  }

  private fileName(key: string): string {
    return `${createHash('sha256').update(key).digest('hex')}.bin`;
  }

  private remember(name: string, size: number): void {
    this.total -= this.entries.get(name) ?? 0;
    this.entries.delete(name);
    this.entries.set(name, size);
    this.total += size;
  }

  has(key: string): boolean {
    return this.entries.has(this.fileName(key));
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const name = this.fileName(key);
    const tmp = path.join(this.dir, `${name}.${process.pid}.tmp`);
    await fs.promises.writeFile(tmp, bytes, { mode: 0o600 });
    await fs.promises.rename(tmp, path.join(this.dir, name));
    this.remember(name, bytes.length);
    for (const [old, size] of this.entries) {
      if (this.total <= this.maxBytes || old === name) break;
      this.entries.delete(old);
      this.total -= size;
      await fs.promises.rm(path.join(this.dir, old), { force: true });
    }
  }

  async read(key: string, start: number, end: number): Promise<Readable | null> {
    const handle = await this.open(key);
    if (!handle) return null;
    if (end <= start) {
      await handle.close();
      return Readable.from([]);
    }
    return handle.createReadStream({ start, end: end - 1 });
  }

  async readInto(key: string, target: Buffer, offset: number, length: number): Promise<boolean> {
    const handle = await this.open(key);
    if (!handle) return false;
    try {
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(target, offset + read, length - read, read);
        if (!bytesRead) return false;
        read += bytesRead;
      }
      return true;
    } finally {
      await handle.close();
    }
  }

  /** Opens an entry's file for reading, which counts as a use of it; null when the file is gone. */
  private async open(key: string): Promise<fs.promises.FileHandle | null> {
    const name = this.fileName(key);
    try {
      const handle = await fs.promises.open(path.join(this.dir, name), 'r');
      this.used(name);
      return handle;
    } catch (err) {
      this.gone(name, err);
      return null;
    }
  }

  /** The entry was read: it goes last in the order of use. */
  private used(name: string): void {
    const size = this.entries.get(name);
    if (size !== undefined) this.remember(name, size);
  }

  /** Forgets an entry whose file is gone; any other failure is thrown. */
  private gone(name: string, err: unknown): void {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    this.total -= this.entries.get(name) ?? 0;
    this.entries.delete(name);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

function fitToSize(bytes: Buffer, size: number): Buffer {
  if (bytes.length === size) return bytes;
  return bytes.length > size ? bytes.subarray(0, size) : Buffer.concat([bytes, Buffer.alloc(size - bytes.length)]);
}

/** Stream errors with ENOENT make imap-core skip the node silently; anything else fails the fetch. */
function fetchError(err: unknown): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') (e as NodeJS.ErrnoException).code = 'EATTACHMENT';
  return e;
}

export class AttachmentStorage implements ImapAttachmentStorage {
  private readonly inflight = new Map<string, Promise<void>>();
  /** Attachments actually downloaded from the source (cache misses). */
  downloads = 0;

  constructor(
    private readonly source: AttachmentSource,
    private readonly cache: ByteCache,
    private readonly onSizeMismatch?: (ref: AttachmentRef, actual: number) => void,
  ) {}

  /** Downloads into the cache unless already there; concurrent calls share one download. */
  ensure(id: string, lane: Lane = 'content'): Promise<void> {
    if (this.cache.has(id)) return Promise.resolve();
    let pending = this.inflight.get(id);
    if (!pending) {
      const ref = parseExternalId(id);
      pending = (async () => {
        this.downloads++;
        const bytes = await readAll(await this.source.open(ref.messageUid, ref.attachmentId, lane));
        if (bytes.length !== ref.size) this.onSizeMismatch?.(ref, bytes.length);
        await this.cache.put(id, fitToSize(bytes, ref.size));
      })().finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    return pending;
  }

  /** Fetches every listed attachment before a response starts, so failures become NO, not a cut literal. */
  async prefetch(ids: readonly string[], lane: Lane = 'content'): Promise<void> {
    await Promise.all(ids.map((id) => this.ensure(id, lane)));
  }

  /**
   * Each attachment's whole content as base64 lines, the bytes createReadStream gives of all of
   * it, or null when one is not at hand at its declared size (not prefetched, evicted
   * meanwhile, or a shorter file): the streams then serve it as they do. Read with one read
   * into the end of the text's Buffer and encoded there, at each call: kept in memory, text
   * read at random across more messages than fit would go to the old generation and be
   * collected there (in the bench's read-mostly mix, twice the garbage collection's CPU of
   * encoding again).
   */
  async encodedBytes(ids: readonly string[]): Promise<Map<string, Buffer> | null> {
    const out = new Map<string, Buffer>();
    for (const id of ids) {
      const size = parseExternalId(id).size;
      const bytes = Buffer.allocUnsafe(base64EncodedSize(size));
      if (!(await this.cache.readInto(id, bytes, bytes.length - size, size))) return null;
      encodeTail(bytes, size);
      out.set(id, bytes);
    }
    return out;
  }

  async get(id: string): Promise<StoredAttachmentInfo> {
    return attachmentInfo(id);
  }

  createReadStream(id: string, _info: StoredAttachmentInfo, bounds: ReadBounds): Readable & { outputBytes: number } {
    const open = async (window: RawWindow, retry: boolean): Promise<Readable> => {
      await this.ensure(id);
      const raw = await this.cache.read(id, window.start, window.end);
      if (raw) return raw;
      if (!retry) throw new Error('attachment vanished from the cache');
      return open(window, false);
    };
    return windowStream(id, bounds, (window) => open(window, true));
  }
}

/** Empty metadata: rebuild() then takes node.size, which describeMessage computed exactly. */
function attachmentInfo(id: string): StoredAttachmentInfo {
  return {
    contentType: 'application/octet-stream',
    transferEncoding: 'base64',
    length: parseExternalId(id).size,
    count: 1,
    hash: id,
    metadata: {},
  };
}

/** The base64 text under `bounds` of an external node, its raw bytes from `open`. */
function windowStream(
  id: string,
  bounds: ReadBounds,
  open: (window: RawWindow) => Promise<Readable>,
): Readable & { outputBytes: number } {
  const size = parseExternalId(id).size;
  const window = rawWindow(size, bounds);
  if (!window) return Object.assign(Readable.from([]), { outputBytes: 0 });
  // the encoder is the returned stream: its outputBytes is final by the time it ends
  const encoder = new Base64WindowEncoder(size, window);
  open(window).then(
    (raw) => pipeline(raw, encoder, (err) => err && encoder.destroy(fetchError(err))),
    (err: unknown) => encoder.destroy(fetchError(err)),
  );
  return encoder;
}

/** Zero bytes in 64 KiB pieces: stand-ins of the right length. */
function* zeros(length: number): Generator<Buffer> {
  for (let left = length; left > 0; left -= 65_536) yield Buffer.alloc(Math.min(left, 65_536));
}

/**
 * The external attachments a partial read of a section touches (`selector` and `bounds` as
 * imap-core's getContents takes them). imap-core's own rebuild runs over stand-in bytes of the
 * same encoded length, so its byte accounting is the real one, and records what it opens:
 * reading the first kilobytes of a message downloads no attachment that lies beyond them.
 */
export async function attachmentsRead(
  tree: MimeTreeNode,
  selector: ContentSelector | false,
  bounds: { startFrom: number; maxLength: number },
): Promise<string[]> {
  const opened: string[] = [];
  const recorder: ImapAttachmentStorage = {
    get: async (id) => attachmentInfo(id),
    createReadStream: (id, _info, window) =>
      windowStream(id, window, async (raw) => {
        opened.push(id);
        return Readable.from(zeros(raw.end - raw.start));
      }),
  };
  const contents = createIndexer(recorder).getContents(tree, selector, bounds);
  if (typeof contents !== 'string') for await (const _ of contents.value) void _;
  return opened;
}

export function createAttachmentStorage(
  source: AttachmentSource,
  options: AttachmentStorageOptions = {},
): AttachmentStorage {
  const cache = options.cacheDir
    ? new DiskByteCache(options.cacheDir, options.maxCacheBytes)
    : new MemoryByteCache(options.maxCacheBytes);
  return new AttachmentStorage(source, cache, options.onSizeMismatch);
}
