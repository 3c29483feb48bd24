import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import {
  attachmentsRead,
  buildMessage,
  createAttachmentStorage,
  createIndexer,
  describeMessage,
  describeRecord,
  externalAttachments,
  externalId,
  parseExternalId,
  type AttachmentStorage,
  type MimeTreeNode,
} from '../../src/mime';
import { base64EncodedSize } from '../../src/mime/base64-window';
import { attachmentBytes, MemorySource, richMessage } from './fixtures';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-mime-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** What imap-core sends for BODY[...]: the rebuilt stream cut/padded to its expectedLength. */
async function serve(
  tree: MimeTreeNode,
  storage: AttachmentStorage,
  selector?: { path?: string; type?: string },
  partial?: { startFrom: number; maxLength: number },
) {
  const result = createIndexer(storage).getContents(tree, selector ?? false, partial);
  if (typeof result === 'string') return { bytes: Buffer.from(result, 'binary'), expectedLength: result.length };
  const bytes = await drain(result.value);
  const limit = result.expectedLength - (partial?.startFrom ?? 0);
  return {
    bytes: bytes.subarray(0, partial?.maxLength ? Math.min(partial.maxLength, limit) : limit),
    expectedLength: result.expectedLength,
  };
}

describe('deterministic message', () => {
  it('same JSON gives the same bytes in two builds and in another process', () => {
    const a = buildMessage(richMessage(), attachmentBytes);
    const b = buildMessage(richMessage(), attachmentBytes);
    expect(a.equals(b)).toBe(true);
    // the stored row (summary, header lines, JSON) too: a tree built from it again serves the same bytes
    const rowHash = sha(JSON.stringify(describeRecord(richMessage())));
    expect(sha(JSON.stringify(describeRecord(richMessage())))).toBe(rowHash);

    const script = [
      "const { buildMessage, describeRecord } = require('./src/mime');",
      "const { attachmentBytes, richMessage } = require('./test/mime/fixtures');",
      "const h = (b) => require('node:crypto').createHash('sha256').update(b).digest('hex');",
      'console.log(h(buildMessage(richMessage(), attachmentBytes)), h(JSON.stringify(describeRecord(richMessage()))));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], {
      cwd: path.resolve(__dirname, '../..'),
      encoding: 'utf8',
    });
    expect(out.trim().split(' ')).toEqual([sha(a), rowHash]);
  });

  it('has the headers the vendor JSON implies and nothing random', () => {
    const head = buildMessage(richMessage(), attachmentBytes).toString('latin1').split('\r\n\r\n')[0];
    expect(head).toContain('Date: Tue, 05 Mar 2024 08:09:10 +0000');
    expect(head).toContain('Message-ID: <orig-1@example.org>');
    expect(head).toContain('In-Reply-To: <parent@example.org>');
    expect(head).toContain('References: <root@example.org> <parent@example.org>');
    expect(head).toContain('List-Unsubscribe: <mailto:unsub@example.org>');
    expect(head).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(head).not.toMatch(/^Bcc:/m);
    expect(head).not.toMatch(/^X-/m);
  });

  it('keeps Bcc when the vendor lists it, and never lets a header value break a line', () => {
    const msg = { ...richMessage(), bcc: [{ address: 'hidden@example.com' }], subject: 'evil\r\nX-Injected: yes' };
    const head = buildMessage(msg, attachmentBytes).toString('latin1').split('\r\n\r\n')[0];
    expect(head).toMatch(/^Bcc: hidden@example.com$/m);
    expect(head).not.toMatch(/^X-Injected/m);
  });
});

describe('describeMessage', () => {
  it('describes without attachment bytes and agrees with a full parse of the real message', () => {
    const described = describeMessage(richMessage());
    const row = describeRecord(richMessage());
    // a 3 MB attachment is not in it
    expect(row.summary.length + row.header.length + row.message.length).toBeLessThan(20_000);
    expect(externalAttachments(described.mimeTree).map((r) => r.attachmentId)).toEqual(['logo', 'big', 'notes']);

    const full = buildMessage(richMessage(), attachmentBytes);
    const indexer = createIndexer();
    const parsed = indexer.parseMimeTree(full);
    expect(described.bodystructure).toEqual(indexer.getBodyStructure(parsed));
    expect(described.envelope).toEqual(indexer.getEnvelope(parsed));
    expect(described.size).toBe(indexer.getSize(parsed));
    // every byte is counted, the final CRLF included
    expect(described.size).toBe(full.length);
  });
});

describe('serving with the attachment storage', () => {
  it('full message: exact size, real bytes, parses back to the vendor content; a second fetch is cached', async () => {
    const msg = richMessage();
    const source = new MemorySource(attachmentBytes);
    const storage = createAttachmentStorage(source, { cacheDir: path.join(tmp, 'cache-a') });
    const { mimeTree, size } = describeMessage(msg);
    expect(source.opened).toEqual([]);

    const first = await serve(mimeTree, storage);
    expect(first.expectedLength).toBe(size);
    expect(first.bytes.length).toBe(size);
    expect(first.bytes.equals(buildMessage(msg, attachmentBytes).subarray(0, size))).toBe(true);

    const mail = await simpleParser(first.bytes, { keepCidLinks: true });
    expect(mail.subject).toBe(msg.subject);
    expect(mail.from?.value[0]).toEqual({ name: 'Jürgen Ümlaut', address: 'juergen@example.org' });
    expect(mail.text?.trim()).toBe('Hallo Welt ünd\nzweite Zeile');
    expect(mail.html).toBe(msg.body!.html);
    const byName = new Map(mail.attachments.map((a) => [a.filename, a]));
    expect(byName.get('Präsentation großer Teil.pdf')!.content.equals(attachmentBytes.get('big')!)).toBe(true);
    expect(byName.get('empty.txt')!.content.length).toBe(0);
    expect(byName.get('notes.txt')!.content.equals(attachmentBytes.get('notes')!)).toBe(true);
    const logo = byName.get('logo.png')!;
    expect(logo.contentId).toBe('<logo@x>');
    expect(logo.contentDisposition).toBe('inline');
    expect(logo.content.equals(attachmentBytes.get('logo')!)).toBe(true);

    const second = await serve(mimeTree, storage);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(source.opened.sort()).toEqual(['msg-0001/big', 'msg-0001/logo', 'msg-0001/notes']);

    // a restarted bridge builds the tree again from the stored JSON and finds the bytes on disk
    const restarted = createAttachmentStorage(source, { cacheDir: path.join(tmp, 'cache-a') });
    const rebuilt = describeMessage(JSON.parse(describeRecord(msg).message)).mimeTree;
    expect((await serve(rebuilt, restarted)).bytes.equals(first.bytes)).toBe(true);
    expect(restarted.downloads).toBe(0);
  });

  it('partial fetches return exactly the requested window, also inside and across attachments', async () => {
    const source = new MemorySource(attachmentBytes);
    const storage = createAttachmentStorage(source, { maxCacheBytes: 64 * 1024 * 1024 });
    const { mimeTree, size } = describeMessage(richMessage());
    const full = (await serve(mimeTree, storage)).bytes;
    const windows = [
      [0, 100],
      [size - 50, 50],
      [5000, 78 * 3 + 7],
      [1_000_003, 250_001],
      [size - 4_200_000, 4_100_000],
      [17, 0], // no length: to the end
    ];
    for (const [startFrom, maxLength] of windows) {
      const { bytes } = await serve(mimeTree, storage, undefined, { startFrom, maxLength });
      expect(
        bytes.equals(full.subarray(startFrom, maxLength ? startFrom + maxLength : undefined)),
        `${startFrom}+${maxLength}`,
      ).toBe(true);
      // what a prefetch for this window downloads is exactly what serving it reads
      const alone = new MemorySource(attachmentBytes);
      await serve(mimeTree, createAttachmentStorage(alone), undefined, { startFrom, maxLength });
      const read = (await attachmentsRead(mimeTree, false, { startFrom, maxLength })).map((id) => {
        const ref = parseExternalId(id);
        return `${ref.messageUid}/${ref.attachmentId}`;
      });
      expect(read.sort(), `${startFrom}+${maxLength}`).toEqual(alone.opened.sort());
    }
    expect(source.opened.length).toBe(3);
    // the first 100 bytes reach no attachment; the last 50 only the last one
    expect(await attachmentsRead(mimeTree, false, { startFrom: 0, maxLength: 100 })).toEqual([]);
    expect(
      (await attachmentsRead(mimeTree, false, { startFrom: size - 50, maxLength: 50 })).map(
        (id) => parseExternalId(id).attachmentId,
      ),
    ).toEqual(['notes']);
  });

  it('body part fetch of one attachment streams its base64 with 76-character lines', async () => {
    const storage = createAttachmentStorage(new MemorySource(attachmentBytes));
    const { mimeTree } = describeMessage(richMessage());
    const { bytes } = await serve(mimeTree, storage, { path: '2', type: 'content' });
    const lines = bytes.toString('latin1').split('\r\n');
    expect(lines.slice(0, -1).every((l) => l.length === 76)).toBe(true);
    expect(Buffer.from(lines.join(''), 'base64').equals(attachmentBytes.get('big')!)).toBe(true);
  });

  it('a failing vendor download fails the stream instead of cutting the literal silently', async () => {
    const storage = createAttachmentStorage(new MemorySource(new Map()));
    const { mimeTree } = describeMessage(richMessage());
    await expect(
      storage.prefetch(
        externalAttachments(mimeTree).map((r) => `${r.messageUid}\u0000${r.attachmentId}\u0000${r.size}`),
      ),
    ).rejects.toThrow(/no attachment/);
    await expect(serve(mimeTree, storage)).rejects.toThrow(/no attachment/);
  });

  it('encodes each attachment whole, the bytes the stream gives, while its file is at hand', async () => {
    const cacheDir = path.join(tmp, 'cache-encoded');
    const storage = createAttachmentStorage(new MemorySource(attachmentBytes), { cacheDir });
    const { mimeTree } = describeMessage(richMessage());
    const ids = externalAttachments(mimeTree).map(externalId);
    expect(await storage.encodedBytes(ids)).toBeNull(); // nothing downloaded yet
    await storage.prefetch(ids);
    const encoded = (await storage.encodedBytes(ids))!;
    for (const id of ids) {
      const streamed = await drain(storage.createReadStream(id, await storage.get(id), { startFrom: 0, maxLength: 0 }));
      expect(encoded.get(id)!.equals(streamed), id).toBe(true);
      expect(streamed.length).toBe(base64EncodedSize(parseExternalId(id).size));
    }
    // a file gone from the cache (evicted meanwhile): the streams serve, downloading it again
    fs.rmSync(cacheDir, { recursive: true });
    expect(await storage.encodedBytes(ids)).toBeNull();
  });

  it('fits a vendor body of the wrong length to the promised size and reports it', async () => {
    const mismatches: number[] = [];
    const bytes = new Map(attachmentBytes).set('logo', Buffer.alloc(10, 1));
    const storage = createAttachmentStorage(new MemorySource(bytes), {
      onSizeMismatch: (_ref, actual) => mismatches.push(actual),
    });
    const { mimeTree, size } = describeMessage(richMessage());
    expect((await serve(mimeTree, storage)).bytes.length).toBe(size);
    expect(mismatches).toEqual([10]);
  });
});
