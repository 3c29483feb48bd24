import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MailMessage } from '../domain/message';
import { isLocalMessage } from '../store';
import { compileQuery, orBranches, textTerms, type SearchCandidate, type SearchTerm } from './search';
import { RecentMessages } from './recent';
import type { ImapSession } from './session';

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

/** Substring over the stored message: drafts, and everything when the vendor has no search command. */
function localText(
  message: MailMessage | undefined,
  headerLines: readonly string[],
  key: 'body' | 'text',
  value: string,
): boolean {
  if (!message) return false;
  const body = `${message.body?.text ?? ''}\n${message.body?.html ?? ''}`;
  const haystack = key === 'body' ? body : `${headerLines.join('\n')}\n${body}`;
  return haystack.toLowerCase().includes(value.toLowerCase());
}

/**
 * SEARCH / UID SEARCH over the session's view of the folder. BODY and TEXT go to the vendor
 * search (assumption A4), one call per distinct term; everything else is evaluated on the
 * cached metadata without vendor requests.
 */
export async function searchMessages(
  view: AccountView,
  folder: ImapFolder,
  rawQuery: unknown[],
  session: ImapSession,
  recent: ReadonlySet<number>,
): Promise<{ uidList: number[]; highestModseq: number }> {
  const query = rawQuery as SearchTerm[];
  const visible = new Set(session.selected ? session.selected.uidList : []);
  const rows = view.allRows(folder).filter((r) => visible.has(r.uid));
  const ids = rows.map((r) => r.messageUid);
  const headers = usesHeaders(query) ? await view.headers(ids) : new Map<string, string[]>();

  const vendorHits = new Map<string, Set<string> | null>();
  for (const { value } of textTerms(query)) {
    if (vendorHits.has(value)) continue;
    const hits = await view.searchText(folder, value);
    vendorHits.set(value, hits && new Set(hits));
  }
  // bodies are read only when the vendor cannot search them, and for what only the bridge holds (drafts)
  const vendorSearches = ![...vendorHits.values()].includes(null);
  const scanned = vendorHits.size ? (vendorSearches ? ids.filter(isLocalMessage) : ids) : [];
  const messages = scanned.length ? await view.storedMessages(scanned) : new Map<string, MailMessage>();

  const matches = compileQuery(query, (key, value, c) => {
    const hits = vendorHits.get(value);
    return hits && !isLocalMessage(c.messageUid)
      ? hits.has(c.messageUid)
      : localText(messages.get(c.messageUid), c.headerLines, key, value);
  });
  const uidList: number[] = [];
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
      uidList.push(row.uid);
      highestModseq = Math.max(highestModseq, row.modseq);
    }
  }
  return { uidList, highestModseq };
}
