import { headerText } from './header-text';
import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MailMessage } from '../domain/message';
import { isLocalMessage, type MessageRow } from '../store';
import { casemap } from './casemap';
import { resolveObjectIdTerms } from './object-ids';
import { compileQuery, orBranches, textTerms, type SearchCandidate, type SearchTerm } from './search';
import { RecentMessages } from './recent';
import type { SearchQuery, Session } from './engine';

const noHeaders: readonly string[] = [];

/** Keys evaluated on the stored header lines (TEXT also searches the header). */
const headerKeys = new Set(['header', 'date', 'text']);

function usesHeaders(query: readonly SearchTerm[]): boolean {
  return query.some(
    (t) =>
      headerKeys.has(t.key) ||
      (t.key === 'not' && usesHeaders([t.value as SearchTerm])) ||
      (t.key === 'or' && orBranches(t).some(usesHeaders)),
  );
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

/**
 * SEARCH / UID SEARCH over the session's view of the folder. BODY and TEXT go to the vendor
 * search (assumption A4), one call per distinct term, and its hits are checked on the stored
 * text; everything else is evaluated on the cached metadata without vendor requests.
 */
export async function searchMessages(
  view: AccountView,
  folder: ImapFolder,
  rawQuery: SearchQuery,
  session: Session,
  recent: ReadonlySet<number>,
): Promise<{ uidList: number[]; highestModseq: number; modseqs: Map<number, number>; rows: MessageRow[] }> {
  const visible = new Set(session.selected ? session.selected.uidList : []);
  const rows = view.allRows(folder).filter((r) => visible.has(r.uid));
  const query = await resolveObjectIdTerms(view, rawQuery, rows);
  const ids = rows.map((r) => r.messageUid);
  const headers = usesHeaders(query) ? await view.headers(ids) : new Map<string, string[]>();

  // the vendor's hits are candidates: each is checked on the bridge's copy of the message
  const vendorHits = new Map<string, Set<string> | null>();
  for (const { value } of textTerms(query)) {
    if (vendorHits.has(value)) continue;
    const probe = vendorProbe(value);
    const hits = probe === null ? null : await view.searchText(folder, probe);
    vendorHits.set(value, hits && new Set(hits));
  }
  // bodies are read for the vendor's candidates and what only the bridge holds (drafts), or
  // for every message when a term could not go to the vendor
  const candidates = [...vendorHits.values()];
  const scanned = candidates.includes(null)
    ? ids
    : ids.filter((id) => isLocalMessage(id) || candidates.some((hits) => hits?.has(id)));
  const local = new LocalText(scanned.length ? await view.storedMessages(scanned) : new Map());

  const needles = new Map(textTerms(query).map(({ value }) => [value, casemap(value)]));
  const matches = compileQuery(query, (key, value, c) => {
    const folded = needles.get(value) ?? casemap(value);
    if (key === 'text' && local.header(c, folded)) return true;
    const hits = vendorHits.get(value);
    if (hits && !isLocalMessage(c.messageUid) && !hits.has(c.messageUid)) return false;
    return local.body(c, folded);
  });
  const matched: MessageRow[] = [];
  let highestModseq = 0;
  for (const row of rows) {
    const candidate: SearchCandidate = {
      uid: row.uid,
      messageUid: row.messageUid,
      modseq: row.modseq,
      flags: RecentMessages.flagsOf(recent, row.uid, row.flags),
      idate: row.idate,
      size: row.size,
      headerLines: headers.get(row.messageUid) ?? noHeaders,
    };
    if (matches(candidate)) {
      matched.push(row);
      highestModseq = Math.max(highestModseq, row.modseq);
    }
  }
  return {
    uidList: matched.map((r) => r.uid),
    highestModseq,
    // each match's MODSEQ: ESEARCH with MIN or MAX alone carries those of the messages it returns
    modseqs: new Map(matched.map((r) => [r.uid, r.modseq])),
    rows: matched,
  };
}
