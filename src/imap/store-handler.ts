import type { AccountView, ImapFolder } from '../domain/account-view';
import type { FlagAction } from '../domain/flag-update';
import { RecentMessages } from './recent';
import type { ImapSession } from './session';

export interface StoreUpdate {
  action: FlagAction;
  value: string[];
  messages: number[];
  silent: boolean;
  isUid?: boolean;
  unchangedSince?: number | false;
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
  session: ImapSession,
  recent: ReadonlySet<number>,
): Promise<number[]> {
  const rows = view.rows(folder, update.messages);
  // imap-core passes false without UNCHANGEDSINCE; 0 fails for every message (RFC 7162 3.1.3)
  const since = update.unchangedSince;
  const modified = typeof since === 'number' ? rows.filter((r) => r.modseq > since).map((r) => r.uid) : [];
  const targets = rows.filter((r) => !modified.includes(r.uid));
  const result = await view.updateFlags(folder, targets, update.action, update.value, session.id);
  // a keyword set for the first time in the folder is announced before the tagged OK, .SILENT or not
  session.announceKeywords(result.updated.flatMap((u) => u.flags));
  const condstore = session.selected !== false && !!session.selected.condstoreEnabled;
  if (!update.silent || condstore) {
    for (const u of result.updated) {
      const response = session.formatResponse('FETCH', u.uid, {
        uid: update.isUid ? u.uid : false,
        flags: update.silent ? false : RecentMessages.flagsOf(recent, u.uid, u.flags),
        modseq: condstore ? u.modseq : false,
      });
      if (response) session.writeStream.write(response);
    }
  }
  if (result.error) throw result.error;
  return modified;
}
