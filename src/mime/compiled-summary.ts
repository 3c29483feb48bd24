import libmime from 'libmime';
import * as punycode from 'punycode.js';
import type { CompiledSummary } from '../model/mail-rows';
import { mapped } from '../util/lists';

/**
 * ENVELOPE and BODYSTRUCTURE as the exact bytes imap-core would put on the wire, made once per
 * message when it is described, for both session kinds (plain, and UTF8=ACCEPT where strings
 * stay unencoded). A metadata FETCH then copies text instead of decoding the structures,
 * MIME-encoding their words and compiling them for every message every time: the same
 * answer for a fraction of the work (see fetch.ts).
 *
 * The encoding and the compiling are imap-core's (getQueryResponse in imap-tools.js and
 * imap-compiler.js) for the values ENVELOPE and BODYSTRUCTURE hold, written out here because
 * describing runs for every message a sync brings and the general path (a new Indexer per
 * call, copies, a compiler for every kind of token) cost a sixth of it; test/mime/summary
 * compares both for every corpus message.
 */

const compiledItems = ['envelope', 'bodystructure'] as const;

/** Items a compiled summary answers. */
export function isCompiledItem(item: string): item is (typeof compiledItems)[number] {
  return (compiledItems as readonly string[]).includes(item);
}

/**
 * JSON.stringify of a string, which is how imap-compiler quotes one. Most ENVELOPE and
 * BODYSTRUCTURE strings hold nothing JSON escapes (a quote, a backslash, a control character,
 * a surrogate), and quoting those directly costs a fraction of JSON.stringify, which is called
 * for some forty strings a message.
 */
const unescaped = /^[^"\\\x00-\x1f\ud800-\udfff]*$/;

function quoted(text: string): string {
  return unescaped.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** imap-compiler's form of a list of strings, Buffers, numbers, NIL and lists. */
function compile(node: unknown): string {
  if (Array.isArray(node)) {
    // a run of lists that opens a list is written without separators (a multipart's parts)
    let runOfLists = node.length > 1 && Array.isArray(node[0]);
    let out = '(';
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (runOfLists && !Array.isArray(child)) runOfLists = false;
      if (i && !runOfLists) out += ' ';
      out += compile(child);
    }
    return `${out})`;
  }
  if (node === null || node === undefined || node === false) return 'NIL';
  if (typeof node === 'string') return quoted(node);
  if (Buffer.isBuffer(node)) return quoted(node.toString('binary'));
  if (typeof node === 'number') return String(Math.round(node) || 0);
  throw new Error(`not an ENVELOPE or BODYSTRUCTURE value: ${typeof node}`);
}

const encodeWords = (value: Buffer | string): string => libmime.encodeWords(value.toString(), false, Infinity);

/** A plain session's BODYSTRUCTURE: its Buffers MIME-encoded (imap-tools.js encodeStructureStrings). */
function plainStructure(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainStructure);
  return Buffer.isBuffer(value) ? encodeWords(value) : value;
}

/** A plain session's address list: names and users MIME-encoded, domains in punycode. */
function plainAddresses(list: unknown[]): unknown[] {
  return list.map((address) => {
    const [name, , user, domain] = address as unknown[];
    const copy = (address as unknown[]).slice();
    if (Buffer.isBuffer(name)) copy[0] = encodeWords(name);
    if (Buffer.isBuffer(user)) copy[2] = encodeWords(user);
    if (Buffer.isBuffer(domain)) {
      try {
        copy[3] = punycode.toASCII(domain.toString());
      } catch {
        copy[3] = domain.toString();
      }
    }
    return copy;
  });
}

/**
 * An ENVELOPE item compiled for both session kinds. Address lists are remembered by identity:
 * model-envelope.ts gives the same list to every message with the same field value, and
 * nothing changes a list once made.
 */
interface CompiledItem {
  utf8: string;
  plain: string;
  /** Whether plain sessions get it encoded (the summary then has both forms). */
  needs: boolean;
}
const compiledLists = new WeakMap<object, CompiledItem>();

function compiledItem(item: unknown, i: number): CompiledItem {
  const list = i >= 2 && i <= 7 && Array.isArray(item) ? item : undefined;
  const known = list && compiledLists.get(list);
  if (known) return known;
  const utf8 = compile(item);
  const needs = needsEncoding(item);
  let plain = utf8;
  // what needs no encoding compiles the same encoded (printable ASCII is left as it is)
  if (needs) plain = compile(list ? plainAddresses(list) : i === 1 ? encodeWords(item as Buffer | string) : item);
  const compiled = { utf8, plain, needs };
  if (list) compiledLists.set(list, compiled);
  return compiled;
}

/** Characters plain sessions get MIME-encoded (libmime.encodeWords): anything but printable ASCII, tab, CR, LF. */
const encodedInPlainSessions = /[^\t\r\n\x20-\x7e]/;

function needsEncoding(value: unknown): boolean {
  if (typeof value === 'string') return encodedInPlainSessions.test(value);
  if (Buffer.isBuffer(value)) return encodedInPlainSessions.test(value.toString('latin1'));
  return Array.isArray(value) && value.some(needsEncoding);
}

export function compileSummary(envelope: unknown[], bodystructure: unknown[]): CompiledSummary {
  // an ENVELOPE opens with its date, never a list: its items are compiled one by one
  const items = mapped(envelope, compiledItem);
  const utf8 = {
    envelope: `(${mapped(items, (c) => c.utf8).join(' ')})`,
    bodystructure: compile(bodystructure),
  };
  // all printable ASCII: both session kinds get the same bytes (an item at a time, as above)
  const structureNeeds = needsEncoding(bodystructure);
  if (!items.some((c) => c.needs) && !structureNeeds) return utf8;
  return {
    envelope: `(${mapped(items, (c) => c.plain).join(' ')})`,
    bodystructure: structureNeeds ? compile(plainStructure(bodystructure)) : utf8.bodystructure,
    utf8,
  };
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

/**
 * A compiled summary's ENVELOPE and BODYSTRUCTURE for one session kind as the bytes on the
 * wire (each with its parentheses): imap-core's composer writes compiled text as latin1
 * ('binary'), one byte a character. Two Buffers, so that each is copied whole (a copy of part
 * of a Buffer makes a view of it every time).
 */
export interface SummaryBytes {
  envelope: Buffer;
  bodystructure: Buffer;
}

export function summaryBytes(summary: CompiledSummary, utf8: boolean): SummaryBytes {
  const { envelope, bodystructure } = (utf8 && summary.utf8) || summary;
  return { envelope: Buffer.from(envelope, 'latin1'), bodystructure: Buffer.from(bodystructure, 'latin1') };
}
