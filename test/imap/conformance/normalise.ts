import libmime from 'libmime';

/**
 * Makes two servers' answers to the same exchange comparable by removing only what
 * legitimately differs between two correct servers (docs/conformance.md, "Normalised"):
 * human-readable text after a status, capability lists, UIDVALIDITY and mod-sequence
 * values, the INTERNALDATE of a message appended just now, the order of FETCH items and of
 * flags in a list, the letter case of BODY and BODYSTRUCTURE strings, how a header's encoded
 * words are encoded, LIST child attributes and whether a mailbox name is quoted.
 */

/** One token of a response: an atom (with its [section] and <partial>), quoted, literal or list. */
type Token = { kind: 'atom' | 'quoted' | 'literal' | 'literal8'; text: string } | { kind: 'list'; items: Token[] };

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  tokens(end: string | null): Token[] {
    const out: Token[] = [];
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === ' ') this.pos++;
      else if (end !== null && c === end) {
        this.pos++;
        return out;
      } else out.push(this.token());
    }
    return out;
  }

  private token(): Token {
    const c = this.text[this.pos];
    if (c === '(') {
      this.pos++;
      return { kind: 'list', items: this.tokens(')') };
    }
    if (c === '"') {
      let i = this.pos + 1;
      while (i < this.text.length && this.text[i] !== '"') i += this.text[i] === '\\' ? 2 : 1;
      const text = this.text.slice(this.pos, i + 1);
      this.pos = i + 1;
      return { kind: 'quoted', text };
    }
    const literal = /^(~?)\{(\d+)\}\r\n/.exec(this.text.slice(this.pos, this.pos + 24));
    if (literal) {
      const start = this.pos + literal[0].length;
      this.pos = start + Number(literal[2]);
      // a literal8 (RFC 3516 BINARY) stays told apart
      return {
        kind: literal[1] ? 'literal8' : 'literal',
        text: this.text.slice(this.pos - Number(literal[2]), this.pos),
      };
    }
    let i = this.pos;
    let depth = 0;
    while (i < this.text.length) {
      const ch = this.text[i];
      if (ch === '[' || ch === '<') depth++;
      else if (ch === ']' || ch === '>') depth--;
      else if (depth === 0 && (ch === ' ' || ch === ')' || ch === '(')) break;
      i++;
    }
    const text = this.text.slice(this.pos, i);
    this.pos = i;
    return { kind: 'atom', text };
  }
}

/** A token back as text; literals are written as quoted strings so their framing cannot differ. */
function write(t: Token): string {
  if (t.kind === 'list') return `(${t.items.map(write).join(' ')})`;
  if (t.kind === 'literal') return JSON.stringify(t.text);
  if (t.kind === 'literal8') return `~${JSON.stringify(t.text)}`;
  return t.text;
}

/** Quoted strings as atoms (LIST's extended data: `"CHILDINFO"`, `("OLDNAME" ("name"))`, RFC 5258 and 5465). */
function unquoted(t: Token): Token {
  if (t.kind === 'list') return { kind: 'list', items: t.items.map(unquoted) };
  return t.kind === 'quoted' ? { kind: 'atom', text: JSON.parse(t.text) as string } : t;
}

/** Strings of ENVELOPE/BODY/BODYSTRUCTURE: encoded words decoded, letter case folded. */
function foldStrings(t: Token, upper: boolean): Token {
  if (t.kind === 'list') return { kind: 'list', items: t.items.map((i) => foldStrings(i, upper)) };
  if (t.kind !== 'quoted') return t;
  // IMAP quoted strings escape only " and \, as JSON does
  const decoded = libmime.decodeWords(JSON.parse(t.text) as string);
  return { kind: 'quoted', text: JSON.stringify(upper ? decoded.toUpperCase() : decoded) };
}

function sortedFlags(list: Token): Token {
  if (list.kind !== 'list') return list;
  return { kind: 'list', items: [...list.items].sort((a, b) => write(a).localeCompare(write(b))) };
}

/**
 * An INTERNALDATE of the last minute is a message appended without a date: each server
 * stamps it with its own clock, so the two may fall either side of a second's boundary.
 */
function appendedNow(t: Token): Token {
  const at =
    t.kind === 'quoted' ? Date.parse(t.text.slice(1, -1).replace(/^ ?(\d+)-(\w+)-(\d+)/, '$1 $2 $3')) : Number.NaN;
  return Math.abs(Date.now() - at) < 60_000 ? { kind: 'atom', text: '<now>' } : t;
}

/** `* n FETCH (...)`: items sorted by name, values made comparable. */
function fetchResponse(prefix: string, body: string): string {
  const [list] = new Reader(body).tokens(null);
  if (list?.kind !== 'list') return prefix + body;
  const pairs: Array<[string, Token]> = [];
  for (let i = 0; i + 1 < list.items.length; i += 2) {
    const name = write(list.items[i]).toUpperCase();
    let value = list.items[i + 1];
    if (name === 'FLAGS') value = sortedFlags(value);
    else if (name === 'MODSEQ') value = { kind: 'atom', text: '(<modseq>)' };
    else if (name === 'INTERNALDATE') value = appendedNow(value);
    else if (name === 'ENVELOPE') value = foldStrings(value, false);
    else if (name === 'BODY' || name === 'BODYSTRUCTURE') value = foldStrings(value, true);
    pairs.push([name, value]);
  }
  pairs.sort(([a], [b]) => a.localeCompare(b));
  return `${prefix}(${pairs.map(([n, v]) => `${n} ${write(v)}`).join(' ')})`;
}

/** Splits an answer into responses; a literal belongs to the response it appears in. */
export function responses(answer: string): string[] {
  const out: string[] = [];
  let current = '';
  let pos = 0;
  while (pos < answer.length) {
    const eol = answer.indexOf('\r\n', pos);
    if (eol < 0) {
      current += answer.slice(pos);
      break;
    }
    const line = answer.slice(pos, eol);
    const literal = /\{(\d+)\}$/.exec(line);
    if (literal) {
      current += `${line}\r\n${answer.slice(eol + 2, eol + 2 + Number(literal[1]))}`;
      pos = eol + 2 + Number(literal[1]);
      continue;
    }
    out.push(current + line);
    current = '';
    pos = eol + 2;
  }
  if (current) out.push(current);
  return out;
}

/** What a comparison keeps that is optional elsewhere. */
export interface NormaliseOptions {
  /** The child attributes of LIST, required once a client asks for them (RFC 5258 RETURN (CHILDREN)). */
  childAttributes?: boolean;
}

function normaliseResponse(r: string, options: NormaliseOptions): string | null {
  if (/^\* CAPABILITY /i.test(r)) return null;
  // mod-sequences count differently on every server; both send them where RFC 7162 allows
  if (/^\* OK \[HIGHESTMODSEQ /i.test(r)) return null;
  if (/^\* ESEARCH /i.test(r)) return r.replace(/ MODSEQ \d+$/i, ' MODSEQ <modseq>');
  // a mailbox's objectid (RFC 8474) is each server's own, and Dovecot 2.3 has no OBJECTID
  if (/^\* OK \[MAILBOXID /i.test(r)) return null;
  const list = /^\* (LIST|LSUB) \((.*?)\) (\S+) (.*)$/s.exec(r);
  if (list) {
    // child information (RFC 3348) is optional without RETURN (CHILDREN); an atom and a quoted name are the same name
    const attributes = list[2]
      .split(' ')
      .filter((a) => a && (options.childAttributes || !/^\\Has(No)?Children$/i.test(a)))
      .sort();
    // the name, then any extended data (RFC 5258 CHILDINFO), whose tag may be an atom or quoted
    const [name, ...extended] = new Reader(list[4]).tokens(null);
    const text = name.kind === 'quoted' ? (JSON.parse(name.text) as string) : write(name);
    const data = extended.map((t) => ` ${write(unquoted(t))}`).join('');
    return `* ${list[1]} (${attributes.join(' ')}) ${list[3]} ${text}${data}`;
  }
  const statusData = /^\* STATUS ("(?:[^"\\]|\\.)*"|\S+) (\(.*\))$/s.exec(r);
  if (statusData) {
    // a quoted and an atom name are the same name; UIDVALIDITY and mod-sequences are each server's own
    const name = statusData[1].startsWith('"') ? (JSON.parse(statusData[1]) as string) : statusData[1];
    const items = statusData[2].replace(/\b(UIDVALIDITY|HIGHESTMODSEQ) \d+/gi, '$1 <$1>');
    return `* STATUS ${name} ${items}`;
  }
  const fetch = /^(\* \d+ FETCH )(.*)$/s.exec(r);
  if (fetch) return fetchResponse(fetch[1], fetch[2]);
  const flags = /^(\* FLAGS |\* OK \[PERMANENTFLAGS )(\(.*?\))(.*)$/s.exec(r);
  if (flags) {
    const [list] = new Reader(flags[2]).tokens(null);
    return `${flags[1]}${write(sortedFlags(list))}${flags[1].startsWith('* OK') ? ']' : ''}`;
  }
  const status = /^(\S+) (OK|NO|BAD)(?: \[([^\]]*)\])?/i.exec(r);
  if (status) {
    const code = (status[3] ?? '')
      .replace(/^CAPABILITY .*/i, '')
      .replace(/^(UIDVALIDITY|COPYUID|APPENDUID) \d+/i, '$1 <uidvalidity>');
    return `${status[1]} ${status[2].toUpperCase()}${code ? ` [${code}]` : ''}`;
  }
  return r;
}

/**
 * An answer as the list of its comparable responses. Untagged data comes in no prescribed
 * order (SELECT's in particular), so it is sorted; FETCH responses sort by sequence number,
 * as both servers send them. The tagged status stays last.
 */
export function normalise(answer: string, options: NormaliseOptions = {}): string[] {
  const all = responses(answer)
    .map((r) => normaliseResponse(r, options))
    .filter((r): r is string => r !== null);
  const untagged = all.filter((r) => r.startsWith('* '));
  const key = (r: string) => r.replace(/^\* (\d+) /, (_, n: string) => `* ${n.padStart(10, '0')} `);
  untagged.sort((a, b) => key(a).localeCompare(key(b)));
  return [...untagged, ...all.filter((r) => !r.startsWith('* '))];
}
