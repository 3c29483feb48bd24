/** The parts of an imap-core session object the hooks use. */
export interface ImapSession {
  id: string;
  user: { id: string; username: string };
  selected: { uidList: number[]; condstoreEnabled?: boolean; mailbox: string } | false;
  /** While SELECT or EXAMINE runs its hook: whether it is EXAMINE (patch examine-tells-open-hook). */
  opening?: { readOnly: boolean; qresync?: QresyncParameter | null } | null;
  writeStream: { write(chunk: unknown, callback?: () => void): boolean };
  formatResponse(command: string, uid: number, data?: Record<string, unknown>): unknown;
  /** Sends FLAGS and PERMANENTFLAGS first when `flags` holds keywords the client was not told about. */
  announceKeywords(flags: readonly string[]): void;
  getQueryResponse(query: unknown[], message: Record<string, unknown>, options: Record<string, unknown>): unknown[];
  isUTF8Enabled(): boolean;
  /** `* VANISHED (EARLIER) ...` for those of `uids` the client's UID `set` names, or false (QRESYNC). */
  earlierVanished(uids: readonly number[], set: string): unknown;
}

/** SELECT/EXAMINE's QRESYNC parameter (RFC 7162 3.2.5), as imap-core parsed it. */
export interface QresyncParameter {
  uidValidity: number;
  modseq: number;
}
