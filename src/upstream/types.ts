/** Wire shapes of the vendor API (spec sections 2 and 4; gaps per ./assumptions.ts). */

export interface Recipient {
  email: string;
  name?: string;
}

export interface MessageBody {
  html: string;
  text: string;
  external_images: boolean;
}

export interface AttachmentMeta {
  attachment_id: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  inline: boolean;
  content_id: string | null;
  [scanField: string]: unknown;
}

export interface MessageHeaders {
  content_type: string;
  ip_address: string;
  is_tls: boolean;
  spf_success: boolean;
  dkim_success: boolean;
  dmarc_success: boolean;
  spam_score: number;
  list_unsubscribe: string | null;
  [more: string]: unknown;
}

export interface VendorMessage {
  message_uid: string;
  thread_id: string;
  message_id: string;
  folders: string[];
  labels: string[];
  from_name: string;
  from_email: string;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  /** Assumed (A11 family): array of Message-ID strings, oldest first. */
  references: string[];
  subject: string;
  is_read: boolean;
  is_starred: boolean;
  is_important: boolean;
  snoozed_until: string | null;
  received_at: string;
  body?: MessageBody;
  headers?: MessageHeaders;
  full_headers?: Record<string, unknown>;
  attachments?: AttachmentMeta[];
}

export type FolderRole = 'inbox' | 'sent' | 'drafts' | 'trash' | 'spam' | 'archive' | null;

/** Assumption A10. */
export interface VendorFolder {
  name: string;
  role: FolderRole;
  total: number;
  unread: number;
}

/** Assumption A11. */
export interface VendorThread {
  thread_id: string;
  last_message_uid: string;
  subject: string;
  message_count: number;
  last_received_at: string;
  message_uids: string[];
}

export interface Command {
  command: string;
  args?: Record<string, unknown>;
}

export interface CommandResult<T = Record<string, unknown>> {
  command: string;
  id: string;
  type: string;
  data?: T;
  code?: string;
  message?: string;
}

export interface CommandResponse {
  type: string;
  results: CommandResult[];
}

/** /v3.0/send request: documented fields plus the optional ones of assumption A16. */
export interface SendRequest {
  to: string;
  from: string;
  senderName?: string;
  subject: string;
  body: string;
  [optional: string]: unknown;
}

export interface SharedDomainList {
  success: boolean;
  domains: string[];
  responseTime: string;
}
