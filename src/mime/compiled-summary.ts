// the compiler alone: describe workers load this module, and need no IMAP server
import compiler from '@zone-eu/wildduck/imap-core/lib/handler/imap-compiler';
import { getQueryResponse } from '@zone-eu/wildduck/imap-core/lib/imap-tools';
import { cloneImapStructure } from './tree-codec';

/**
 * ENVELOPE and BODYSTRUCTURE as the exact bytes imap-core would put on the wire, made once per
 * message when it is described, for both session kinds (plain, and UTF8=ACCEPT where strings
 * stay unencoded). A metadata FETCH then copies text instead of decoding the structures,
 * MIME-encoding their words and compiling them for every message every time: the same
 * answer for a fraction of the work (see fetch.ts).
 */

export interface CompiledSummary {
  /** [plain session, UTF8=ACCEPT session] */
  envelope: [string, string];
  bodystructure: [string, string];
}

const compiledItems = ['envelope', 'bodystructure'] as const;

/** Items a compiled summary answers. */
export function isCompiledItem(item: string): item is (typeof compiledItems)[number] {
  return (compiledItems as readonly string[]).includes(item);
}

function compileFor(envelope: unknown[], bodystructure: unknown[], acceptUTF8Enabled: boolean): [string, string] {
  // getQueryResponse encodes in place: it gets copies
  const message = { envelope: cloneImapStructure(envelope), bodystructure: cloneImapStructure(bodystructure) };
  const values = getQueryResponse(
    compiledItems.map((item) => ({ item })),
    message,
    { acceptUTF8Enabled },
  );
  // a response without tag and command compiles to just the value's own bytes: both are lists
  const [e, b] = values.map((v) => compiler({ attributes: [v] }));
  if (!/^\(.*\)$/s.test(e) || !/^\(.*\)$/s.test(b)) throw new Error('ENVELOPE or BODYSTRUCTURE did not compile to a list');
  return [e, b];
}

export function compileSummary(envelope: unknown[], bodystructure: unknown[]): CompiledSummary {
  const [plainEnvelope, plainBody] = compileFor(envelope, bodystructure, false);
  const [utf8Envelope, utf8Body] = compileFor(envelope, bodystructure, true);
  return { envelope: [plainEnvelope, utf8Envelope], bodystructure: [plainBody, utf8Body] };
}

/**
 * A compiled item as a FETCH value: imap-core passes a list through to its compiler, which
 * copies a TEXT token verbatim, so the list's own parentheses wrap the compiled inside.
 */
export function compiledToken(summary: CompiledSummary, item: (typeof compiledItems)[number], utf8: boolean): [{ type: 'TEXT'; value: string }] {
  const text = summary[item][utf8 ? 1 : 0];
  return [{ type: 'TEXT', value: text.slice(1, -1) }];
}
