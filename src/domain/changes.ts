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

/** Where an account's changes go for its sessions to hear of: the change journal (change-journal.ts). */
export interface ChangeSink {
  publish(account: AccountId, folder: string, changes: FolderChange[]): void;
  /** The folder's UID map ended (MailState.retireFolder): a session that selected it cannot go on. */
  retired(account: AccountId, folder: string): void;
}
