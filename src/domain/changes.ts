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

/** A mailbox a client created, deleted or renamed (RFC 5465's MailboxName event), by its IMAP names. */
export interface MailboxNameChange {
  path: string;
  /** The name it had before a RENAME. */
  oldPath?: string;
  deleted?: boolean;
}

/** What changed in an account, as sessions that asked (IMAP NOTIFY) hear of it. */
export type MailboxEvent =
  | {
      kind: 'messages' /** folderKey() of the folder */;
      mailbox: string;
      commands: ReadonlySet<FolderChange['command']>;
    }
  | { kind: 'name'; change: MailboxNameChange };

/** Where an account's changes go for its sessions to hear of: the change journal (change-journal.ts). */
export interface ChangeSink {
  publish(account: AccountId, folder: string, changes: FolderChange[]): void;
  /** The folder's UID map ended (MailState.retireFolder): a session that selected it cannot go on. */
  retired(account: AccountId, folder: string): void;
  /** A client created, deleted or renamed a mailbox. */
  named(account: AccountId, change: MailboxNameChange): void;
}
