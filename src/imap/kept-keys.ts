import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { messageKeys, type MessageKey, type MessageKeys } from '../mime/message-keys';
import { perAccountCache } from './message-derived-cache';

/**
 * The keys SORT, THREAD and SEARCH compare of each message (../mime/message-keys.ts), read
 * from the store only for messages that lack one asked for, and kept per account with those
 * read before: a message's keys never change.
 */

/** Messages whose keys are kept per account (a few hundred bytes each). */
const keptKeys = perAccountCache<Partial<MessageKeys>>(50_000);

/** The keys of a message the store does not have (its header lines are empty too). */
const headerless = messageKeys([]);

/** The `keys` of each of `messageUids` (messages of `folder`), by message. */
export async function keysOf(
  view: AccountView,
  folder: ImapFolder,
  messageUids: string[],
  keys: readonly MessageKey[],
): Promise<Map<string, Partial<MessageKeys>>> {
  const kept = keptKeys(view);
  const out = new Map<string, Partial<MessageKeys>>();
  const lacking: string[] = [];
  for (const uid of messageUids) {
    const known = kept.get(uid);
    if (known && keys.every((k) => known[k] !== undefined)) out.set(uid, known);
    else lacking.push(uid);
  }
  if (!lacking.length) return out;
  const read = await view.messageKeys(folder, lacking, keys);
  for (const uid of lacking) {
    const found = read.get(uid);
    const known = kept.get(uid);
    // the keys read join those kept (a message's keys never change, so nothing is overwritten)
    if (known && found) Object.assign(known, found);
    else if (found) kept.set(uid, found);
    out.set(uid, known ?? found ?? headerless);
  }
  return out;
}
