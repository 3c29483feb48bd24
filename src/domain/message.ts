/**
 * The bridge's own model of a mail message, what every module from the connector up reads.
 * The vendor connector (upstream/vendor-connector.ts) builds it from the vendor's JSON; the
 * store keeps it; mime/compose.ts turns it into RFC 822 bytes. Nothing here names a vendor
 * field, so a vendor that renames one changes the connector alone.
 */

export interface MailAddress {
  address: string;
  name?: string;
}

export interface MailAttachment {
  /** What the connector's attachment download is asked for. */
  id: string;
  filename: string;
  contentType: string;
  /** Bytes, as the vendor declares them. */
  size: number;
  inline: boolean;
  contentId: string | null;
}

export interface MailMessage {
  /** The vendor's id of the message: one message in every folder and label holding it. */
  id: string;
  threadId: string;
  /** RFC 5322 Message-ID, with its angle brackets. */
  messageId: string;
  folders: string[];
  labels: string[];
  from: MailAddress | null;
  to: MailAddress[];
  cc: MailAddress[];
  bcc: MailAddress[];
  /** Message-IDs of the References chain, oldest first. */
  references: string[];
  subject: string;
  seen: boolean;
  flagged: boolean;
  important: boolean;
  /** Set while the user snoozes the message in webmail (shown as $Snoozed). */
  snoozedUntil: string | null;
  /** ISO 8601 arrival time: INTERNALDATE, and the order new messages are numbered in. */
  receivedAt: string;
  /** Present once content was read, as are the fields below. */
  body?: { text: string; html: string };
  attachments?: MailAttachment[];
  listUnsubscribe?: string | null;
  /**
   * What the bridge derived when it first read the message's content, kept with it so the
   * message is composed the same way every time. Absent on messages read before it existed:
   * those keep their first form.
   */
  composition?: Composition;
  /**
   * Why the vendor's data of this message could not be read, when it could not: the message is
   * then served, under its UID, as a placeholder saying so, and read again at the next full sync.
   */
  unreadable?: string;
}

/** Composition inputs of a message (mime/compose.ts), derived once from the vendor's data. */
export interface Composition {
  /** Raises when composing changes; each version's output stays fixed. */
  version: 2;
  /** Fields of the vendor's copy of the original header, name -> values. */
  headers: Record<string, string[]>;
  /** RFC 8601 results, when the vendor reported them. */
  authentication: { authservId: string; spf: string; dkim: string; dmarc: string } | null;
  spam: { score: number; flagged: boolean } | null;
  /** Bytes of message/* attachments (base64, by attachment id), served as 7bit/8bit. */
  messageParts: Record<string, string>;
}

/** The folders and labels a message is in: what decides which mailboxes show it. */
export type Placement = Pick<MailMessage, 'folders' | 'labels'>;
