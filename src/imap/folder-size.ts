import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';

/** Messages whose size is read at once when it is not known yet (as FETCH reads them). */
const batchSize = 500;

/**
 * STATUS SIZE (RFC 8438): the sum of the RFC822.SIZE of the folder's messages. The folder is
 * synced first, as for SELECT; a size not known yet (a message never described) is read as
 * FETCH RFC822.SIZE reads it, from the cached or vendor metadata.
 */
export async function folderSize(view: AccountView, folder: ImapFolder): Promise<number> {
  const { rows } = await view.open(folder);
  let size = 0;
  const unknown: string[] = [];
  for (const r of rows) {
    if (r.size) size += r.size;
    else unknown.push(r.messageUid);
  }
  for (let i = 0; i < unknown.length; i += batchSize)
    for (const summary of (await view.summaries(unknown.slice(i, i + batchSize))).values()) size += summary.size;
  return size;
}
