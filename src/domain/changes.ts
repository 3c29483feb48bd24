import type { AccountId } from '../model/account-id';
/** A change to one folder that connected sessions must hear about (IMAP untagged responses). */
export interface FolderChange {
  command: 'EXISTS' | 'EXPUNGE' | 'FETCH';
  uid: number;
  modseq: number;
  flags?: string[];
  /** Session that caused the change and already saw it in its own response. */
  ignore?: string;
}

export type PublishChanges = (account: AccountId, folder: string, changes: FolderChange[]) => void;
