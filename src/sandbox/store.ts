import type { AttachmentMeta, FolderRole, Recipient, VendorFolder } from '../upstream/types';
import { attachmentIdFor, explicitContent, generateCorpus, messageIdFor, messageUid, threadIdFor } from './corpus';
import { FolderIndex, compareNewestFirst, keyOf, type SortKey } from './folder-index';
import { StoredMessage, matchesQuery } from './message';

export const folderRoles: ReadonlyArray<{ name: string; role: FolderRole }> = [
  { name: 'INBOX', role: 'inbox' },
  { name: 'Sent', role: 'sent' },
  { name: 'Drafts', role: 'drafts' },
  { name: 'Trash', role: 'trash' },
  { name: 'Spam', role: 'spam' },
  { name: 'Archive', role: 'archive' },
];

/** A file attached to a message arriving at run time. */
export interface IncomingFile {
  filename: string;
  contentType: string;
  data: Buffer;
  contentId?: string | null;
  inline?: boolean;
}

/** An email as it leaves a sender: the input of delivery. */
export interface Outgoing {
  fromName: string;
  fromEmail: string;
  to: Recipient[];
  cc?: Recipient[];
  bcc?: Recipient[];
  /** Who gets it, when not everyone the message shows (A26); Bcc recipients always do. */
  deliverTo?: string[];
  subject: string;
  html: string;
  text: string;
  files?: IncomingFile[];
  messageId?: string;
  inReplyTo?: string | null;
  references?: string[];
  replyTo?: string;
}

export class MailboxState {
  readonly messages = new Map<string, StoredMessage>();
  private readonly folders = new Map<string, FolderIndex>(folderRoles.map((f) => [f.name, new FolderIndex()]));
  private readonly byMessageId = new Map<string, StoredMessage>();
  private readonly threadSizes = new Map<string, number>();
  private changes = 0;

  constructor(readonly address: string) {}

  /**
   * Moves on with every change to the mailbox or a message in it (the labels noted for A29
   * aside: read-api.ts never makes a listing of them ahead): an answer worked out at one
   * revision is the answer at any later moment of the same revision.
   */
  get revision(): number {
    return this.changes;
  }

  private readonly changed = (): void => {
    this.changes++;
  };

  /** Canonical folder name, or null if the mailbox has no such folder (INBOX is case-insensitive). */
  folderName(name: string): string | null {
    if (name.toUpperCase() === 'INBOX') return 'INBOX';
    return this.folders.has(name) ? name : null;
  }

  folder(name: string): FolderIndex {
    const index = this.folders.get(name);
    if (!index) throw new Error(`no folder ${name}`);
    return index;
  }

  listFolders(): VendorFolder[] {
    return folderRoles.map(({ name, role }) => {
      const index = this.folder(name);
      return { name, role, total: index.total, unread: index.unread() };
    });
  }

  /** Every label a message carried when labels were listed or added (A29's listing of empty labels). */
  private readonly labelsSeen = new Set<string>();

  /**
   * A21: label names in use, sorted; A29 with `emptyLabelsListed`: every label seen in use too,
   * though no message carries it any more.
   */
  labels(emptyLabelsListed = false): string[] {
    const names = new Set<string>();
    for (const m of this.messages.values()) for (const l of m.labels) names.add(l);
    this.noteLabels(names);
    return [...(emptyLabelsListed ? this.labelsSeen : names)].sort();
  }

  /** Labels a message was given. */
  noteLabels(labels: Iterable<string>): void {
    for (const l of labels) this.labelsSeen.add(l);
  }

  /** A22: the messages carrying `label`, in any folder, indexed like a folder (built per call). */
  labelIndex(label: string): FolderIndex {
    const index = new FolderIndex();
    for (const m of this.messages.values()) if (m.labels.includes(label)) index.add(m);
    return index;
  }

  add(msg: StoredMessage): void {
    this.changed();
    msg.onChange = this.changed;
    this.messages.set(msg.uid, msg);
    this.folder(msg.folder).add(msg);
    this.threadSizes.set(msg.threadId, this.threadSize(msg.threadId) + 1);
    if (!this.byMessageId.has(msg.messageId)) this.byMessageId.set(msg.messageId, msg);
  }

  remove(uid: string): boolean {
    const msg = this.messages.get(uid);
    if (!msg) return false;
    this.changed();
    this.messages.delete(uid);
    this.folder(msg.folder).remove(msg);
    const left = this.threadSize(msg.threadId) - 1;
    if (left > 0) this.threadSizes.set(msg.threadId, left);
    else this.threadSizes.delete(msg.threadId);
    if (this.byMessageId.get(msg.messageId) === msg) this.byMessageId.delete(msg.messageId);
    return true;
  }

  /** Messages of a conversation across all folders. */
  threadSize(threadId: string): number {
    return this.threadSizes.get(threadId) ?? 0;
  }

  move(msg: StoredMessage, folder: string): void {
    if (msg.folder === folder) return;
    this.changed();
    this.folder(msg.folder).remove(msg);
    msg.folder = folder;
    this.folder(folder).add(msg);
  }

  /** Thread of the newest known ancestor, so replies join their conversation. */
  threadFor(ancestors: readonly string[]): string | null {
    for (let i = ancestors.length - 1; i >= 0; i--) {
      const hit = this.byMessageId.get(ancestors[i]);
      if (hit) return hit.threadId;
    }
    return null;
  }

  /** Messages matching the query, newest first, after `cursor`; one more than `limit` if available. */
  search(needle: string, folder: string | null, limit: number, cursor: SortKey | null): StoredMessage[] {
    const lower = needle.toLowerCase();
    const pool = folder ? this.folder(folder).messages() : this.messages.values();
    const hits: StoredMessage[] = [];
    for (const m of pool) {
      if (cursor && compareNewestFirst(keyOf(m), cursor) <= 0) continue;
      if (matchesQuery(m, lower)) hits.push(m);
    }
    hits.sort((a, b) => compareNewestFirst(keyOf(a), keyOf(b)));
    return hits.slice(0, limit + 1);
  }

  /** Messages of one folder (or all), oldest first: the control API's state dump. */
  dump(folder: string | null): StoredMessage[] {
    const list = folder ? [...this.folder(folder).messages()] : [...this.messages.values()];
    return list.sort((a, b) => -compareNewestFirst(keyOf(a), keyOf(b)));
  }
}

/** All mailboxes of the sandbox and the rules by which mail moves between them. */
export class SandboxStore {
  readonly mailboxes = new Map<string, MailboxState>();
  private nextSeq = 0;

  constructor(
    readonly seed: number,
    private readonly clock: () => number,
  ) {}

  addMailbox(address: string): MailboxState {
    const key = address.toLowerCase();
    let box = this.mailboxes.get(key);
    if (!box) {
      box = new MailboxState(key);
      this.mailboxes.set(key, box);
    }
    return box;
  }

  mailbox(address: string): MailboxState | undefined {
    return this.mailboxes.get(address.toLowerCase());
  }

  /** Fills a mailbox with the seeded corpus (see ./corpus.ts). */
  seedCorpus(address: string, count: number, anchor: number): void {
    const box = this.addMailbox(address);
    for (const msg of generateCorpus({ seed: this.seed, owner: box.address, count, anchor, firstSeq: this.nextSeq }))
      box.add(msg);
    this.nextSeq += count;
  }

  private build(
    box: MailboxState,
    out: Outgoing,
    folder: string,
    messageId: string,
    recipientCopy: boolean,
  ): StoredMessage {
    const seq = this.nextSeq++;
    const references = out.references ?? (out.inReplyTo ? [out.inReplyTo] : []);
    const files = (out.files ?? []).map((f, k) => {
      const inline = f.inline ?? Boolean(f.contentId);
      const meta: AttachmentMeta = {
        attachment_id: attachmentIdFor(this.seed, seq, k),
        file_name: f.filename,
        mime_type: f.contentType,
        size_bytes: f.data.length,
        inline,
        content_id: f.contentId ?? null,
        scan_status: 'clean',
        scan_engine: 'sandbox-av',
      };
      return { meta, data: f.data };
    });
    const msg = new StoredMessage(
      messageUid(this.seed, seq),
      seq,
      box.threadFor(out.inReplyTo ? [...references, out.inReplyTo] : references) ?? threadIdFor(this.seed, seq),
      messageId,
      folder,
      {
        fromName: out.fromName,
        fromEmail: out.fromEmail,
        to: out.to,
        cc: out.cc ?? [],
        // recipients never see the Bcc list; the sender's copy keeps it
        bcc: recipientCopy ? [] : (out.bcc ?? []),
        subject: out.subject,
        references,
        inReplyTo: out.inReplyTo ?? null,
        replyTo: out.replyTo ?? null,
      },
      this.clock(),
      explicitContent({ html: out.html, text: out.text, files, outbound: !recipientCopy }),
    );
    box.add(msg);
    return msg;
  }

  /** A message appearing in one folder of one mailbox (control /inject, webmail actions). */
  inject(address: string, out: Outgoing, folder = 'INBOX'): StoredMessage {
    const box = this.mailbox(address);
    if (!box) throw new Error('unknown mailbox');
    return this.build(box, out, folder, out.messageId ?? messageIdFor(this.seed, this.nextSeq, out.fromEmail), true);
  }

  /**
   * Delivers an email: unread into the INBOX of every sandbox recipient, and a read copy into
   * the sender's Sent folder when the sender is a sandbox mailbox.
   */
  deliver(out: Outgoing): { messageId: string; sent: StoredMessage | null; deliveredTo: string[] } {
    const messageId = out.messageId ?? messageIdFor(this.seed, this.nextSeq, out.fromEmail);
    const sender = this.mailbox(out.fromEmail);
    let sent: StoredMessage | null = null;
    if (sender) {
      sent = this.build(sender, out, 'Sent', messageId, false);
      sent.isRead = true;
    }
    const shown = out.deliverTo ?? [...out.to, ...(out.cc ?? [])].map((r) => r.email);
    const targets = new Set([...shown, ...(out.bcc ?? []).map((r) => r.email)].map((a) => a.toLowerCase()));
    const deliveredTo: string[] = [];
    for (const address of targets) {
      const box = this.mailbox(address);
      if (!box) continue;
      this.build(box, out, 'INBOX', messageId, true);
      deliveredTo.push(box.address);
    }
    return { messageId, sent, deliveredTo };
  }
}
