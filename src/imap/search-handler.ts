import type { AccountView, ImapFolder } from '../domain/account-view';
import type { StoredMetadata } from '../store';
import { VendorError } from '../upstream/errors';
import { matchAll, orBranches, textTerms, type SearchCandidate, type SearchTerm } from './search';
import type { ImapSession } from './session';

/** Keys that need the cached MIME header or body, not just the UID/flag/size row. */
const needsMetadata = new Set(['header', 'date', 'body', 'text']);

function usesMetadata(query: readonly SearchTerm[]): boolean {
  return query.some(
    (t) =>
      needsMetadata.has(t.key) ||
      (t.key === 'not' && usesMetadata([t.value as SearchTerm])) ||
      (t.key === 'or' && orBranches(t).some(usesMetadata)),
  );
}

/** Local fallback when the vendor has no search command: substring over the cached message. */
function localText(meta: StoredMetadata | undefined, key: 'body' | 'text', value: string): boolean {
  if (!meta) return false;
  const m = meta.message;
  const body = `${m.body?.text ?? ''}\n${m.body?.html ?? ''}`;
  const haystack = key === 'body' ? body : `${meta.mimeTree.header.join('\n')}\n${body}`;
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
): Promise<{ uidList: number[]; highestModseq: number }> {
  const query = rawQuery as SearchTerm[];
  const visible = new Set(session.selected ? session.selected.uidList : []);
  const rows = view.allRows(folder).filter((r) => visible.has(r.uid));
  const metas = usesMetadata(query) ? await view.metadata(rows.map((r) => r.messageUid)) : new Map<string, StoredMetadata>();

  const vendorHits = new Map<string, Set<string> | null>();
  for (const { value } of textTerms(query)) {
    if (vendorHits.has(value)) continue;
    try {
      vendorHits.set(value, new Set(await view.searchText(folder, value)));
    } catch (err) {
      if (!(err instanceof VendorError && err.kind === 'unsupported')) throw err;
      vendorHits.set(value, null);
    }
  }

  const uidList: number[] = [];
  let highestModseq = 0;
  for (const row of rows) {
    const meta = metas.get(row.messageUid);
    const candidate: SearchCandidate = {
      uid: row.uid,
      messageUid: row.messageUid,
      modseq: row.modseq,
      flags: row.flags,
      idate: row.idate,
      size: row.size,
      headerLines: meta?.mimeTree.header ?? [],
    };
    const matched = matchAll(candidate, query, (key, value) => {
      const hits = vendorHits.get(value);
      return hits ? hits.has(row.messageUid) : localText(meta, key, value);
    });
    if (matched) {
      uidList.push(row.uid);
      highestModseq = Math.max(highestModseq, row.modseq);
    }
  }
  return { uidList, highestModseq };
}
