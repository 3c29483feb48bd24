import { headerText } from '../mime/header-text';
import type { AccountView } from '../domain/account-view';
import type { Lane } from '../domain/connector';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MailMessage } from '../domain/message';
import { isLocalMessage, type MessageRow } from '../store';
import { casemap } from '../mime/casemap';
import { searchedValues } from '../mime/searched-fields';
import { searchedKeys } from '../mime/message-keys';
import { keysOf } from './kept-keys';
import { perAccountCache } from './message-derived-cache';
import { compileQuery, orBranches, textTerms, type FieldValues, type SearchCandidate, type SearchTerm } from './search';
import { RecentMessages } from './recent';

const noHeaders: readonly string[] = [];

/**
 * The fields (lower case) whose decoded values a query's HEADER terms (FROM, SUBJECT, ...
 * included) search; null when it reads the header lines otherwise (SENT*, TEXT, HEADER name "").
 */
function searchedFields(query: readonly SearchTerm[], out = new Set<string>()): Set<string> | null {
  for (const t of query) {
    if (t.key === 'header' && casemap(String(t.value ?? '')) !== '') out.add((t.header ?? '').toLowerCase());
    else if (t.key === 'header' || t.key === 'date' || t.key === 'text') return null;
    else if (t.key === 'not' && !searchedFields([t.value as SearchTerm], out)) return null;
    else if (t.key === 'or' && orBranches(t).some((branch) => !searchedFields(branch, out))) return null;
  }
  return out;
}

/** Per message, the decoded values of the other fields searched so far (a few hundred bytes each). */
const keptFields = perAccountCache<Map<string, readonly string[]>>(50_000);

/**
 * The values of `fields` of each message, taken from what is kept and computed (and kept)
 * for the rest from their header lines, which only they are read from the store for.
 */
async function fieldValues(
  view: AccountView,
  messageUids: string[],
  fields: ReadonlySet<string>,
): Promise<Map<string, ReadonlyMap<string, readonly string[]>>> {
  const kept = keptFields(view);
  const out = new Map<string, Map<string, readonly string[]>>();
  const missing: string[] = [];
  const wanted = [...fields];
  for (const uid of messageUids) {
    const values = kept.get(uid);
    if (values && wanted.every((f) => values.has(f))) out.set(uid, values);
    else missing.push(uid);
  }
  const headers = missing.length ? await view.headers(missing) : new Map<string, string[]>();
  for (const uid of missing) {
    const values = kept.get(uid) ?? new Map<string, readonly string[]>();
    const lines = headers.get(uid) ?? noHeaders;
    for (const f of wanted) if (!values.has(f)) values.set(f, searchedValues(lines, f));
    kept.set(uid, values);
    out.set(uid, values);
  }
  return out;
}

type SearchedField = keyof typeof searchedKeys;
const isSearchedKey = (field: string): field is SearchedField => Object.hasOwn(searchedKeys, field);

/**
 * The values a query's HEADER terms search in each message: SUBJECT, FROM, TO and CC from the
 * keys stored when the message was described, other fields from its header lines.
 */
async function fieldReader(
  view: AccountView,
  folder: ImapFolder,
  messageUids: string[],
  fields: ReadonlySet<string>,
): Promise<FieldValues> {
  const stored = [...fields].filter(isSearchedKey);
  const others = new Set([...fields].filter((f) => !isSearchedKey(f)));
  const keys = stored.length
    ? await keysOf(
        view,
        folder,
        messageUids,
        stored.map((f) => searchedKeys[f]),
      )
    : null;
  const values = others.size ? await fieldValues(view, messageUids, others) : null;
  return (c, name) =>
    (isSearchedKey(name) ? keys?.get(c.messageUid)?.[searchedKeys[name]] : values?.get(c.messageUid)?.get(name)) ?? [];
}

/** A row as a query reads it: its flags (\Recent added) are made only if a term reads them. */
class RowCandidate implements SearchCandidate {
  readonly uid: number;
  readonly messageUid: string;
  readonly modseq: number;
  readonly idate: number;
  readonly size: number;
  private withRecent?: readonly string[];

  constructor(
    private readonly row: MessageRow,
    private readonly recent: ReadonlySet<number>,
    readonly headerLines: readonly string[],
  ) {
    this.uid = row.uid;
    this.messageUid = row.messageUid;
    this.modseq = row.modseq;
    this.idate = row.idate;
    this.size = row.size;
  }

  get flags(): readonly string[] {
    this.withRecent ??= RecentMessages.flagsOf(this.recent, this.uid, this.row.flags);
    return this.withRecent;
  }
}

/**
 * What to ask the vendor for a BODY/TEXT term so that its hits include every message the
 * term matches (A4): the longest stretch of the term in ASCII or Han ideographs, which have
 * no other forms under i;unicode-casemap than their lower and upper case (an accented letter
 * may be written decomposed; ß and ligatures have no single capital). Null when no such
 * stretch is left: then the bridge scans itself.
 */
export function vendorProbe(term: string): string | null {
  let best = '';
  for (const stretch of term.split(/[^\x00-\x7f\p{Script=Han}]+/u))
    if (stretch.trim().length > best.trim().length) best = stretch;
  return best.trim() ? best : null;
}

/**
 * BODY and TEXT evaluated on the bridge's own copy: the decoded text of the body (and for
 * TEXT, the decoded header fields), in casemap form, computed once per message and search.
 */
class LocalText {
  private readonly bodies = new Map<string, string>();
  private readonly headers = new Map<string, string>();

  constructor(private readonly messages: ReadonlyMap<string, MailMessage>) {}

  body(c: SearchCandidate, needle: string): boolean {
    let body = this.bodies.get(c.messageUid);
    if (body === undefined) {
      const message = this.messages.get(c.messageUid);
      body = casemap(`${message?.body?.text ?? ''}\n${message?.body?.html ?? ''}`);
      this.bodies.set(c.messageUid, body);
    }
    return body.includes(needle);
  }

  header(c: SearchCandidate, needle: string): boolean {
    let header = this.headers.get(c.messageUid);
    if (header === undefined) {
      header = casemap(c.headerLines.map((l) => headerText(l)).join('\n'));
      this.headers.set(c.messageUid, header);
    }
    return header.includes(needle);
  }
}

/** A query's terms (or some of them) as one test of a row. */
export type RowTest = (row: MessageRow) => boolean;

/**
 * Reads what the terms of `query` need of `rows` once (header lines, field values, bodies)
 * and compiles any of its terms, ANDed, into a test of those rows. BODY and TEXT go to the
 * vendor search in `vendorLane` (assumption A4), one call per distinct term, and its hits are
 * checked on the stored text; with `vendorLane` null the stored text of every row is checked
 * instead, which answers the same (A4: the vendor's hits include every match). Everything
 * else is evaluated on the cached metadata without vendor requests. `query` has its
 * EMAILID and THREADID terms resolved.
 */
export async function rowTests(
  view: AccountView,
  folder: ImapFolder,
  query: readonly SearchTerm[],
  rows: readonly MessageRow[],
  recent: ReadonlySet<number>,
  vendorLane: Lane | null,
): Promise<(terms: readonly SearchTerm[]) => RowTest> {
  const ids = rows.map((r) => r.messageUid);
  // header lines are read for terms on the whole header; field values are kept per message
  const fields = searchedFields(query);
  const headers = fields ? new Map<string, string[]>() : await view.headers(ids);
  const keptValues = fields?.size ? await fieldReader(view, folder, ids, fields) : undefined;

  // the vendor's hits are candidates: each is checked on the bridge's copy of the message
  const vendorHits = new Map<string, Set<string> | null>();
  for (const { value } of textTerms(query)) {
    if (vendorHits.has(value)) continue;
    const probe = vendorProbe(value);
    const hits = probe === null || vendorLane === null ? null : await view.searchText(folder, probe, vendorLane);
    vendorHits.set(value, hits && new Set(hits));
  }
  // bodies are read for the vendor's candidates and what only the bridge holds (drafts), or
  // for every message when a term could not go to the vendor; for none without a text term
  const candidates = [...vendorHits.values()];
  const scanned = !candidates.length
    ? []
    : candidates.includes(null)
      ? ids
      : ids.filter((id) => isLocalMessage(id) || candidates.some((hits) => hits?.has(id)));
  const local = new LocalText(scanned.length ? await view.storedMessages(scanned) : new Map());

  const needles = new Map(textTerms(query).map(({ value }) => [value, casemap(value)]));
  return (terms) => {
    const matches = compileQuery(
      terms,
      (key, value, c) => {
        const folded = needles.get(value) ?? casemap(value);
        if (key === 'text' && local.header(c, folded)) return true;
        const hits = vendorHits.get(value);
        if (hits && !isLocalMessage(c.messageUid) && !hits.has(c.messageUid)) return false;
        return local.body(c, folded);
      },
      keptValues,
    );
    return (row) => matches(new RowCandidate(row, recent, headers.get(row.messageUid) ?? noHeaders));
  };
}

/**
 * Terms that read nothing of a message but its row (flags, MODSEQ, UID sets; no BODY, TEXT
 * or header term among them) as a test of rows, with nothing read first.
 */
export function rowOnlyTest(terms: readonly SearchTerm[], recent: ReadonlySet<number>): RowTest {
  const matches = compileQuery(terms, () => false);
  return (row) => matches(new RowCandidate(row, recent, noHeaders));
}
