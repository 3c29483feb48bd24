import type { MimeTreeNode } from './imap-indexer';

/**
 * JSON with Buffers kept as Buffers (tagged base64). The MIME tree holds header/body Buffers,
 * and imap-core's ENVELOPE/BODYSTRUCTURE mark values that need MIME encoding by making them
 * Buffers, so a plain JSON round trip (or structuredClone, which yields Uint8Array) breaks them.
 */

const tag = '$b64';

/**
 * The same JSON text a `JSON.stringify` replacer turning each Buffer into `{ $b64 }` would
 * give, but made by one walk first: the replacer form has every Buffer go through toJSON (an
 * array of byte numbers) before replacing it, and calls back into JS for every value.
 */
function prepare(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value)) return { [tag]: value.toString('base64') };
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = prepare(value[i]);
    return out;
  }
  // Dates and the like: JSON.stringify calls their toJSON, as before
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = prepare((value as Record<string, unknown>)[key]);
  return out;
}

export function encodeWithBuffers(value: unknown): string {
  return JSON.stringify(prepare(value));
}

/** Replaces `{ $b64 }` objects (and only those: exactly that one key) by Buffers, in place. */
function revive(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v !== null && typeof v === 'object') value[i] = revive(v);
    }
    return value;
  }
  const obj = value as Record<string, unknown>;
  const b64 = obj[tag];
  if (typeof b64 === 'string') {
    let keys = 0;
    for (const _ in obj) if (++keys > 1) break;
    if (keys === 1) return Buffer.from(b64, 'base64');
  }
  for (const key in obj) {
    const v = obj[key];
    if (v !== null && typeof v === 'object') obj[key] = revive(v);
  }
  return obj;
}

/** Inverse of encodeWithBuffers; the same result as a JSON.parse reviver, without a call per value. */
export function decodeWithBuffers<T>(json: string): T {
  return revive(JSON.parse(json)) as T;
}

export function serializeMimeTree(tree: MimeTreeNode): string {
  return encodeWithBuffers(tree);
}

export function deserializeMimeTree(json: string): MimeTreeNode {
  return decodeWithBuffers<MimeTreeNode>(json);
}

/** Deep copy of an ENVELOPE/BODYSTRUCTURE value that keeps Buffers (imap-core edits them in place). */
export function cloneImapStructure<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneImapStructure(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = cloneImapStructure((value as Record<string, unknown>)[key]);
  return out as T;
}
