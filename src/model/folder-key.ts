import { type AccountId, accountId } from './account-id';

/**
 * One account's folder as one string: what imap-core carries as the selected mailbox and what
 * journals and caches are keyed by. Built and taken apart only here.
 */
declare const folderKeyBrand: unique symbol;

export type FolderKey = string & { readonly [folderKeyBrand]: true };

const separator = '\u0000';

export function folderKey(account: AccountId, folder: string): FolderKey {
  return `${account}${separator}${folder}` as FolderKey;
}

/** The parts of a key made by folderKey (imap-core hands it back as it was given). */
export function splitFolderKey(key: string): { account: AccountId; folder: string } {
  const i = key.indexOf(separator);
  return { account: accountId(key.slice(0, i)), folder: key.slice(i + 1) };
}
