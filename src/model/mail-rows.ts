/** The rows of the IMAP state: what the store keeps and the domain and protocol read. */

/** Compiled items of a plain session; `utf8` only when a UTF8=ACCEPT session gets other bytes. */
export interface CompiledSummary {
  envelope: string;
  bodystructure: string;
  utf8?: { envelope: string; bodystructure: string };
}

export interface FolderState {
  uidValidity: number;
  uidNext: number;
  highestModseq: number;
  count: number;
  unseen: number;
}

/**
 * One message of a folder. Every row of every cached folder stays in memory (100,000 of them
 * after a large mailbox synced), so rows are kept small: the date as a number, and flag lists
 * shared between rows with the same flags (frozen: rows are replaced, never changed).
 */
export interface MessageRow {
  uid: number;
  messageUid: string;
  flags: readonly string[];
  modseq: number;
  /** INTERNALDATE (the vendor's received_at), epoch milliseconds. */
  idate: number;
  /** RFC822.SIZE from the cached metadata; 0 until it is known. */
  size: number;
}

export interface NewMessage {
  messageUid: string;
  flags?: readonly string[];
  idate?: Date;
  /** Its stored RFC822.SIZE (message_cache), when the caller has it: the store then does not look it up. */
  size?: number;
}

/** A UID given out or removed, with the MODSEQ of that change. */
export interface UidChange {
  messageUid: string;
  uid: number;
  modseq: number;
}

/** What a metadata FETCH needs: RFC822.SIZE and the compiled ENVELOPE/BODYSTRUCTURE. */
export interface MessageSummary {
  size: number;
  compiled: CompiledSummary;
}
