import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { isValidKeyword } from '../domain/flags';
import { Refusal } from '../domain/refusal';
import { RecentMessages } from './recent';
import type { Session, StoreUpdate } from './engine';

/**
 * A keyword that is not an atom (8-bit bytes, atom-specials) is refused before anything
 * changes: it would reach the vendor as a mangled label, and FLAGS could not carry it.
 */
export function refuseInvalidKeywords(flags: readonly string[]): void {
  const invalid = flags.filter((f) => !isValidKeyword(f));
  if (invalid.length)
    throw new Refusal('cannot', 'Invalid characters in keyword: a keyword is printable ASCII without ( ) { % * " \\ ]');
}

/**
 * STORE / UID STORE. The vendor confirms before anything is answered; messages whose vendor
 * call failed keep their flags and the command fails with the vendor's reason. Returns the
 * UIDs that failed an UNCHANGEDSINCE test (CONDSTORE MODIFIED list).
 */
export async function storeFlags(
  view: AccountView,
  folder: ImapFolder,
  update: StoreUpdate,
  session: Session,
  recent: ReadonlySet<number>,
): Promise<number[]> {
  refuseInvalidKeywords(update.value);
  const rows = view.rows(folder, update.messages);
  // imap-core passes false without UNCHANGEDSINCE; 0 fails for every message (RFC 7162 3.1.3)
  const since = update.unchangedSince;
  const modified = typeof since === 'number' ? rows.filter((r) => r.modseq > since).map((r) => r.uid) : [];
  const targets = rows.filter((r) => !modified.includes(r.uid));
  const result = await view.updateFlags(folder, targets, update.action, update.value, session.id);
  // a keyword set for the first time in the folder is announced before the tagged OK, .SILENT or not
  session.untagged.keywords(result.updated.flatMap((u) => u.flags));
  const condstore = session.selected !== false && !!session.selected.condstoreEnabled;
  if (!update.silent || condstore) {
    for (const u of result.updated)
      session.untagged.fetchFlags(u.uid, {
        uid: update.isUid ? u.uid : false,
        flags: update.silent ? false : RecentMessages.flagsOf(recent, u.uid, u.flags),
        modseq: condstore ? u.modseq : false,
      });
  }
  if (result.error) throw result.error;
  return modified;
}
