import libmime from 'libmime';

/**
 * RFC 3501 SEARCH evaluated synchronously on cached metadata. imap-core parses the command
 * into a term tree; its own matcher is async per message (one setImmediate per term), far too
 * slow for 100k-message folders, so the tree is walked here instead. BODY/TEXT terms are
 * answered by a precomputed set (vendor search, or a local scan when the vendor has none).
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
  idate: Date;
  size: number;
  /** Raw header lines of the message (folded lines joined), as served in BODY[HEADER]. */
  headerLines: readonly string[];
}

/** Answers BODY/TEXT terms: true if the message matches `value` for that key. */
export type TextMatcher = (key: 'body' | 'text', value: string, candidate: SearchCandidate) => boolean;

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

function dayOf(date: Date): number {
  return Math.floor(date.getTime() / 86_400_000);
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

function headerValues(lines: readonly string[], name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return lines
    .filter((l) => l.toLowerCase().startsWith(prefix))
    .map((l) =>
      libmime.decodeWords(
        l
          .slice(prefix.length)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
      ),
    );
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

function matchTerm(c: SearchCandidate, term: SearchTerm, text: TextMatcher): boolean {
  switch (term.key) {
    case 'all':
      return true;
    case 'flag': {
      const has = c.flags.some((f) => f.toLowerCase() === String(term.value).toLowerCase());
      return term.exists === false ? !has : has;
    }
    case 'header': {
      const values = headerValues(c.headerLines, term.header ?? '');
      const needle = String(term.value ?? '').toLowerCase();
      // HEADER name "" matches any message that has the field (RFC 3501 6.4.4).
      return needle === ''
        ? values.length > 0 || c.headerLines.some((l) => l.toLowerCase().startsWith(`${term.header}:`))
        : values.some((v) => v.toLowerCase().includes(needle));
    }
    case 'internaldate':
      return compare(term.operator, dayOf(c.idate), imapDay(term.value));
    case 'date':
      return compare(term.operator, sentDay(c), imapDay(term.value));
    case 'size':
      return compare(term.operator, c.size, Number(term.value));
    case 'uid':
      return (term.value as number[]).includes(c.uid);
    case 'modseq':
      return c.modseq >= Number(term.value);
    case 'body':
    case 'text':
      return text(term.key, String(term.value ?? ''), c);
    case 'not':
      return !matchTerm(c, term.value as SearchTerm, text);
    case 'or':
      return orBranches(term).some((branch) => matchAll(c, branch, text));
    default:
      return false;
  }
}

export function matchAll(c: SearchCandidate, query: readonly SearchTerm[], text: TextMatcher): boolean {
  return query.every((t) => matchTerm(c, t, text));
}
