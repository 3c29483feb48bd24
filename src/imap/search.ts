import { casemap } from '../mime/casemap';
import { headerValues, searchedValues } from '../mime/searched-fields';

/**
 * RFC 3501 SEARCH evaluated synchronously on cached metadata. imap-core parses the command
 * into a term tree; its own matcher is async per message (one setImmediate per term), far too
 * slow for 100k-message folders, so the tree is walked here instead. BODY/TEXT terms are
 * answered by a precomputed set (vendor search, or a local scan when the vendor has none).
 * Strings match as substrings under i;unicode-casemap (../mime/casemap.ts), headers on their
 * RFC 2047-decoded text.
 */

export interface SearchTerm {
  key: string;
  value?: unknown;
  exists?: boolean;
  header?: string;
  operator?: string;
}

export interface SearchCandidate {
  uid: number;
  messageUid: string;
  modseq: number;
  flags: readonly string[];
  /** INTERNALDATE, epoch milliseconds. */
  idate: number;
  size: number;
  /** Raw header lines of the message (folded lines joined), as served in BODY[HEADER]. */
  headerLines: readonly string[];
}

/** Answers BODY/TEXT terms: true if the message matches `value` for that key. */
export type TextMatcher = (key: 'body' | 'text', value: string, candidate: SearchCandidate) => boolean;

/** The texts a HEADER term on field `name` (lower case) searches in a message: `searchedValues` of its header lines, or kept ones. */
export type FieldValues = (candidate: SearchCandidate, name: string) => readonly string[];

const fromHeaderLines: FieldValues = (c, name) => searchedValues(c.headerLines, name);

/** imap-core gives each OR operand either as one term or as a list of terms. */
export function orBranches(term: SearchTerm): SearchTerm[][] {
  return (term.value as Array<SearchTerm | SearchTerm[]>).map((b) => (Array.isArray(b) ? b : [b]));
}

/** Every BODY/TEXT term of a query tree, so they can be resolved in one pass before matching. */
export function textTerms(query: readonly SearchTerm[]): Array<{ key: 'body' | 'text'; value: string }> {
  const out: Array<{ key: 'body' | 'text'; value: string }> = [];
  const walk = (terms: readonly SearchTerm[]): void => {
    for (const t of terms) {
      if (t.key === 'body' || t.key === 'text') out.push({ key: t.key, value: String(t.value ?? '') });
      else if (t.key === 'not') walk([t.value as SearchTerm]);
      else if (t.key === 'or') for (const branch of orBranches(t)) walk(branch);
    }
  };
  walk(query);
  return out;
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** IMAP date ("1-Feb-2024") as a UTC day number; SEARCH compares whole days, not instants. */
function imapDay(value: unknown): number {
  const m = /^(\d{1,2})-([a-z]{3})-(\d{4})$/i.exec(String(value).trim());
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[3]), months.indexOf(m[2].toLowerCase()), Number(m[1])) / 86_400_000;
}

function dayOf(epochMs: number): number {
  return Math.floor(epochMs / 86_400_000);
}

/**
 * A flag list's flags in lower case. Rows share their flag lists (one per distinct
 * combination), so a SEARCH over 10,000 rows lowercases a handful of lists, not 10,000.
 */
const lowerFlags = new WeakMap<readonly string[], ReadonlySet<string>>();

function hasFlag(flags: readonly string[], lower: string): boolean {
  let set = lowerFlags.get(flags);
  if (!set) {
    set = new Set(flags.map((f) => f.toLowerCase()));
    lowerFlags.set(flags, set);
  }
  return set.has(lower);
}

function compare(operator: string | undefined, left: number, right: number): boolean {
  switch (operator) {
    case '<':
      return left < right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<=':
      return left <= right;
    default:
      return left === right;
  }
}

/** "[Mon,] 2 Jan 2023 ..." (RFC 5322 3.3, obsolete two- and three-digit years included). */
const writtenDate = /^(?:[a-z]+\s*,)?\s*(\d{1,2})\s+([a-z]{3})[a-z]*\s+(\d{2,4})\b/i;

/**
 * The day a Date header names, in the sender's own zone (RFC 3501 6.4.4: SENT* compare the
 * date, disregarding time and timezone): "Mon, 2 Jan 2023 23:30 -0500" is 2 January although
 * it is 3 January in UTC. Without a readable Date header, the INTERNALDATE's day.
 */
function sentDay(c: SearchCandidate): number {
  const [date] = headerValues(c.headerLines, 'date');
  const m = date ? writtenDate.exec(date) : null;
  const month = m ? months.indexOf(m[2].toLowerCase()) : -1;
  if (!m || month < 0) return dayOf(c.idate);
  const written = Number(m[3]);
  const year = m[3].length === 4 ? written : written < 50 ? 2000 + written : 1900 + written;
  return Date.UTC(year, month, Number(m[1])) / 86_400_000;
}

/** A query term as a test of one message, its arguments parsed once for the whole folder. */
type Predicate = (c: SearchCandidate) => boolean;

function compileTerm(term: SearchTerm, text: TextMatcher, fields: FieldValues): Predicate {
  switch (term.key) {
    case 'all':
      return () => true;
    case 'flag': {
      const flag = String(term.value).toLowerCase();
      const present = term.exists !== false;
      return (c) => hasFlag(c.flags, flag) === present;
    }
    case 'header': {
      const name = term.header ?? '';
      const needle = casemap(String(term.value ?? ''));
      // HEADER name "" matches any message that has the field (RFC 3501 6.4.4).
      if (needle === '')
        return (c) =>
          headerValues(c.headerLines, name).length > 0 ||
          c.headerLines.some((l) => l.toLowerCase().startsWith(`${name}:`));
      const field = name.toLowerCase();
      return (c) => fields(c, field).some((v) => v.includes(needle));
    }
    case 'internaldate': {
      // OLDER/YOUNGER (RFC 5032 WITHIN) come as an instant, the date keys as a whole day
      if (term.value instanceof Date) {
        const instant = term.value.getTime();
        return (c) => compare(term.operator, c.idate, instant);
      }
      const day = imapDay(term.value);
      return (c) => compare(term.operator, dayOf(c.idate), day);
    }
    case 'date': {
      const day = imapDay(term.value);
      return (c) => compare(term.operator, sentDay(c), day);
    }
    case 'size': {
      const size = Number(term.value);
      return (c) => compare(term.operator, c.size, size);
    }
    case 'uid': {
      const uids = new Set(term.value as number[]);
      return (c) => uids.has(c.uid);
    }
    case 'modseq': {
      const modseq = Number(term.value);
      return (c) => c.modseq >= modseq;
    }
    case 'body':
    case 'text': {
      const key = term.key;
      const value = String(term.value ?? '');
      return (c) => text(key, value, c);
    }
    case 'not': {
      const inner = compileTerm(term.value as SearchTerm, text, fields);
      return (c) => !inner(c);
    }
    case 'or': {
      const branches = orBranches(term).map((branch) => compileQuery(branch, text, fields));
      return (c) => branches.some((b) => b(c));
    }
    default:
      return () => false;
  }
}

/** The query (its terms ANDed) as one test of a message. */
export function compileQuery(
  query: readonly SearchTerm[],
  text: TextMatcher,
  fields: FieldValues = fromHeaderLines,
): Predicate {
  const terms = query.map((t) => compileTerm(t, text, fields));
  return (c) => {
    for (const term of terms) if (!term(c)) return false;
    return true;
  };
}
