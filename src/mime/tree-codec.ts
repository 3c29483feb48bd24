import type { MimeTreeNode } from './imap-indexer';

/**
 * JSON with Buffers kept as Buffers (tagged base64). The MIME tree holds header/body Buffers,
 * and imap-core's ENVELOPE/BODYSTRUCTURE mark values that need MIME encoding by making them
 * Buffers, so a plain JSON round trip (or structuredClone, which yields Uint8Array) breaks them.
 */

const tag = '$b64';

export function encodeWithBuffers(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    return Buffer.isBuffer(raw) ? { [tag]: raw.toString('base64') } : v;
  });
}

export function decodeWithBuffers<T>(json: string): T {
  return JSON.parse(json, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const b64 = (v as Record<string, unknown>)[tag];
      if (typeof b64 === 'string' && Object.keys(v).length === 1) return Buffer.from(b64, 'base64');
    }
    return v;
  }) as T;
}

export function serializeMimeTree(tree: MimeTreeNode): string {
  return encodeWithBuffers(tree);
}

export function deserializeMimeTree(json: string): MimeTreeNode {
  return decodeWithBuffers<MimeTreeNode>(json);
}

/** Deep copy of an ENVELOPE/BODYSTRUCTURE value that keeps Buffers (imap-core edits them in place). */
export function cloneImapStructure<T>(value: T): T {
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => cloneImapStructure(v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneImapStructure(v)])) as T;
  }
  return value;
}
