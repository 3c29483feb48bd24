// the compiler alone: describe workers load this module, and need no IMAP server
import compiler from '@mailbridge/imap-core/lib/handler/imap-compiler';
import { getQueryResponse } from '@mailbridge/imap-core/lib/imap-tools';
import type { CompiledSummary } from '../model/mail-rows';

/**
 * ENVELOPE and BODYSTRUCTURE as the exact bytes imap-core would put on the wire, made once per
 * message when it is described, for both session kinds (plain, and UTF8=ACCEPT where strings
 * stay unencoded). A metadata FETCH then copies text instead of decoding the structures,
 * MIME-encoding their words and compiling them for every message every time: the same
 * answer for a fraction of the work (see fetch.ts).
 */

const compiledItems = ['envelope', 'bodystructure'] as const;

/** Items a compiled summary answers. */
export function isCompiledItem(item: string): item is (typeof compiledItems)[number] {
  return (compiledItems as readonly string[]).includes(item);
}

function compileFor(
  envelope: unknown[],
  bodystructure: unknown[],
  acceptUTF8Enabled: boolean,
): { envelope: string; bodystructure: string } {
  // getQueryResponse encodes in place: it gets copies
  const message = { envelope: cloneImapStructure(envelope), bodystructure: cloneImapStructure(bodystructure) };
  const values = getQueryResponse(
    compiledItems.map((item) => ({ item })),
    message,
    { acceptUTF8Enabled },
  );
  // a response without tag and command compiles to just the value's own bytes: both are lists
  const [e, b] = values.map((v) => compiler({ attributes: [v] }));
  if (!/^\(.*\)$/s.test(e) || !/^\(.*\)$/s.test(b))
    throw new Error('ENVELOPE or BODYSTRUCTURE did not compile to a list');
  return { envelope: e, bodystructure: b };
}

/** Characters plain sessions get MIME-encoded (libmime.encodeWords): anything but printable ASCII, tab, CR, LF. */
const encodedInPlainSessions = /[^\t\r\n\x20-\x7e]/;

function needsEncoding(value: unknown): boolean {
  if (typeof value === 'string') return encodedInPlainSessions.test(value);
  if (Buffer.isBuffer(value)) return encodedInPlainSessions.test(value.toString('latin1'));
  return Array.isArray(value) && value.some(needsEncoding);
}

export function compileSummary(envelope: unknown[], bodystructure: unknown[]): CompiledSummary {
  const plain = compileFor(envelope, bodystructure, false);
  // all printable ASCII: both session kinds get the same bytes
  if (!needsEncoding(envelope) && !needsEncoding(bodystructure)) return plain;
  return { ...plain, utf8: compileFor(envelope, bodystructure, true) };
}

/**
 * A compiled item as a FETCH value: imap-core passes a list through to its compiler, which
 * copies a TEXT token verbatim, so the list's own parentheses wrap the compiled inside.
 */
export function compiledToken(
  summary: CompiledSummary,
  item: (typeof compiledItems)[number],
  utf8: boolean,
): [{ type: 'TEXT'; value: string }] {
  const text = ((utf8 && summary.utf8) || summary)[item];
  return [{ type: 'TEXT', value: text.slice(1, -1) }];
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
