import type { AttachmentMeta, MessageBody, MessageHeaders, Recipient, VendorMessage } from '../upstream/types';

/** Network facts behind the headers object (spec section 2). */
export interface TransportInfo {
  ipAddress: string;
  isTls: boolean;
  spf: boolean;
  dkim: boolean;
  dmarc: boolean;
  spamScore: number;
  listUnsubscribe: string | null;
  /** List-Id of mailing-list mail (RFC 2919). */
  listId: string | null;
  contentType: string;
  /** Minutes east of UTC of the sender's Date header. */
  senderZoneMinutes: number;
}

export interface StoredAttachment {
  meta: AttachmentMeta;
  /** The file content in chunks; corpus attachments generate it on demand. */
  chunks(): Iterable<Buffer>;
}

/** The heavy parts of a message, produced on demand so large corpora stay small in memory. */
export interface MessageContent {
  body(): MessageBody;
  attachments(): StoredAttachment[];
  transport(): TransportInfo;
}

export interface Envelope {
  fromName: string;
  fromEmail: string;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  subject: string;
  /** Message-IDs of the ancestors, oldest first. */
  references: string[];
  inReplyTo: string | null;
  replyTo: string | null;
}

/** What commands and the control API change about a message. */
interface MessageState {
  labels: readonly string[];
  isRead: boolean;
  isStarred: boolean;
  isImportant: boolean;
  snoozedUntil: number | null;
}

export class StoredMessage {
  private readonly state: MessageState = {
    labels: [],
    isRead: false,
    isStarred: false,
    isImportant: false,
    snoozedUntil: null,
  };

  /**
   * Told of every change to the message's state: the mailbox holding it sets this, so an answer
   * it prepared before a change is not served after it (see MailboxState.revision).
   */
  onChange: () => void = () => {};

  private set<K extends keyof MessageState>(key: K, value: MessageState[K]): void {
    this.state[key] = value;
    this.onChange();
  }

  get labels(): readonly string[] {
    return this.state.labels;
  }
  set labels(v: readonly string[]) {
    this.set('labels', v);
  }
  get isRead(): boolean {
    return this.state.isRead;
  }
  set isRead(v: boolean) {
    this.set('isRead', v);
  }
  get isStarred(): boolean {
    return this.state.isStarred;
  }
  set isStarred(v: boolean) {
    this.set('isStarred', v);
  }
  get isImportant(): boolean {
    return this.state.isImportant;
  }
  set isImportant(v: boolean) {
    this.set('isImportant', v);
  }
  get snoozedUntil(): number | null {
    return this.state.snoozedUntil;
  }
  set snoozedUntil(v: number | null) {
    this.set('snoozedUntil', v);
  }

  constructor(
    readonly uid: string,
    /** Global arrival order inside the sandbox; tie-breaker for equal timestamps. */
    readonly seq: number,
    readonly threadId: string,
    readonly messageId: string,
    public folder: string,
    readonly envelope: Envelope,
    readonly receivedAt: number,
    readonly content: MessageContent,
  ) {}
}

/** Content given explicitly (injected, sent): kept in memory as is. */
export class ExplicitContent implements MessageContent {
  constructor(
    private readonly html: string,
    private readonly text: string,
    private readonly files: Array<{ meta: AttachmentMeta; data: Buffer }>,
    private readonly info: TransportInfo,
  ) {}

  body(): MessageBody {
    return { html: this.html, text: this.text, external_images: /<img[^>]+src=["']?https?:/i.test(this.html) };
  }

  attachments(): StoredAttachment[] {
    return this.files.map((f) => ({ meta: f.meta, chunks: () => [f.data] }));
  }

  transport(): TransportInfo {
    return this.info;
  }
}

export type IncludePart = 'body' | 'attachments' | 'headers' | 'full_headers';
export const includeParts: readonly IncludePart[] = ['body', 'attachments', 'headers', 'full_headers'];

function headersOf(msg: StoredMessage): MessageHeaders {
  const t = msg.content.transport();
  return {
    content_type: t.contentType,
    ip_address: t.ipAddress,
    is_tls: t.isTls,
    spf_success: t.spf,
    dkim_success: t.dkim,
    dmarc_success: t.dmarc,
    spam_score: t.spamScore,
    list_unsubscribe: t.listUnsubscribe,
  };
}

const verdict = (ok: boolean) => (ok ? 'pass' : 'fail');

const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 5322 date-time of `at` as a sender in a zone `zoneMinutes` east of UTC writes it. */
export function rfc5322Date(at: number, zoneMinutes: number): string {
  const d = new Date(at + zoneMinutes * 60_000);
  const two = (n: number) => String(n).padStart(2, '0');
  const zone = `${zoneMinutes < 0 ? '-' : '+'}${two(Math.floor(Math.abs(zoneMinutes) / 60))}${two(Math.abs(zoneMinutes) % 60)}`;
  return `${weekdays[d.getUTCDay()]}, ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${zone}`;
}

/** How long before its arrival the sandbox's messages were written (the Date header). */
const sentBeforeArrivalMs = 4_000;

function fullHeadersOf(msg: StoredMessage): Record<string, unknown> {
  const t = msg.content.transport();
  const e = msg.envelope;
  const date = new Date(msg.receivedAt).toUTCString();
  const mailbox = (r: Recipient) => (r.name ? `"${r.name.replace(/["\\]/g, '\\$&')}" <${r.email}>` : r.email);
  const headersJson: Record<string, string> = {
    From: e.fromName ? `${e.fromName} <${e.fromEmail}>` : e.fromEmail,
    To: e.to.map((r) => r.email).join(', '),
    Subject: e.subject,
    Date: rfc5322Date(msg.receivedAt - sentBeforeArrivalMs, t.senderZoneMinutes),
    'Message-ID': msg.messageId,
    'Content-Type': t.contentType,
  };
  if (e.inReplyTo) headersJson['In-Reply-To'] = e.inReplyTo;
  if (e.replyTo) headersJson['Reply-To'] = e.replyTo;
  if (e.references.length) headersJson.References = e.references.join(' ');
  if (e.cc.length) headersJson.Cc = e.cc.map(mailbox).join(', ');
  if (t.listId) headersJson['List-Id'] = t.listId;
  if (t.listUnsubscribe) headersJson['List-Unsubscribe'] = t.listUnsubscribe;
  return {
    ...headersOf(msg),
    headers_json: headersJson,
    received_chain: [
      `from mx.sender.example ([${t.ipAddress}]) by mx.sandbox.test with ${t.isTls ? 'ESMTPS' : 'ESMTP'}; ${date}`,
    ],
    spf_result: verdict(t.spf),
    dkim_result: verdict(t.dkim),
    dmarc_result: verdict(t.dmarc),
    spam_result: { score: t.spamScore, is_spam: t.spamScore >= 5 },
  };
}

/** The wire shape of get_messages (spec section 2) with the requested optional parts. */
export function toVendorMessage(msg: StoredMessage, include: readonly IncludePart[]): VendorMessage {
  const e = msg.envelope;
  const out: VendorMessage = {
    message_uid: msg.uid,
    thread_id: msg.threadId,
    message_id: msg.messageId,
    folders: [msg.folder],
    labels: [...msg.labels],
    from_name: e.fromName,
    from_email: e.fromEmail,
    to: e.to,
    cc: e.cc,
    bcc: e.bcc,
    references: e.references,
    subject: e.subject,
    is_read: msg.isRead,
    is_starred: msg.isStarred,
    is_important: msg.isImportant,
    snoozed_until: msg.snoozedUntil === null ? null : new Date(msg.snoozedUntil).toISOString(),
    received_at: new Date(msg.receivedAt).toISOString(),
  };
  for (const part of include) {
    if (part === 'body') out.body = msg.content.body();
    else if (part === 'attachments') out.attachments = msg.content.attachments().map((a) => a.meta);
    else if (part === 'headers') out.headers = headersOf(msg);
    else out.full_headers = fullHeadersOf(msg);
  }
  return out;
}

/** Case-insensitive substring search over subject, names, addresses and body text (A4). */
export function matchesQuery(msg: StoredMessage, needle: string): boolean {
  const e = msg.envelope;
  const has = (s: string) => s.toLowerCase().includes(needle);
  if (has(e.subject) || has(e.fromName) || has(e.fromEmail)) return true;
  for (const r of [...e.to, ...e.cc, ...e.bcc]) if (has(r.email) || (r.name !== undefined && has(r.name))) return true;
  return has(msg.content.body().text);
}
