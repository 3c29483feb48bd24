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
