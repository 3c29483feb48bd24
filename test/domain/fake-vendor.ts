import type { BulkResult, FlagChange, FolderList, ListScope, MailboxApi } from '../../src/upstream/api';
import { OutcomeUnknownError } from '../../src/upstream/errors';
import type { VendorMessage, VendorThread } from '../../src/upstream/types';

/**
 * An in-memory vendor mailbox for domain tests that need to hold a vendor answer back: each
 * message is its own thread, listed newest first. Not a second sandbox: only what the domain
 * layer calls, with hooks to pause it.
 */
export class FakeVendor implements Partial<MailboxApi> {
  readonly mailbox = 'me@example.com';
  readonly messages = new Map<string, VendorMessage>();
  /** Calls by method name, as the domain made them. */
  readonly calls: string[] = [];
  /** Called before getMessages answers; a test may return a promise to hold the answer back. */
  beforeGetMessages: (ids: string[]) => Promise<void> | void = () => undefined;
  beforeFolderList: () => Promise<void> | void = () => undefined;

  add(uid: string, folder = 'INBOX', receivedAt = new Date(Date.UTC(2024, 0, 1) + this.messages.size * 60_000)): void {
    this.messages.set(uid, {
      message_uid: uid,
      thread_id: `t-${uid}`,
      message_id: `<${uid}@example.org>`,
      folders: [folder],
      labels: [],
      from_name: 'Sender',
      from_email: 'sender@example.org',
      to: [{ email: this.mailbox }],
      cc: [],
      bcc: [],
      references: [],
      subject: `message ${uid}`,
      is_read: false,
      is_starred: false,
      is_important: false,
      snoozed_until: null,
      received_at: receivedAt.toISOString(),
      body: { html: `<p>${uid}</p>`, text: uid, external_images: false },
      attachments: [],
    });
  }

  async folderList(): Promise<FolderList> {
    this.calls.push('folderList');
    await this.beforeFolderList();
    const folders = [...new Set([...this.messages.values()].flatMap((m) => m.folders))];
    return {
      folders: ['INBOX', ...folders.filter((f) => f !== 'INBOX')].map((name) => ({
        name,
        role: name === 'INBOX' ? 'inbox' : null,
        total: [...this.messages.values()].filter((m) => m.folders.includes(name)).length,
        unread: [...this.messages.values()].filter((m) => m.folders.includes(name) && !m.is_read).length,
      })),
      labels: [...new Set([...this.messages.values()].flatMap((m) => m.labels))],
    };
  }

  async listThreads(args: ListScope & { cursor?: string | null }) {
    this.calls.push('listThreads');
    const inScope = [...this.messages.values()].filter((m) =>
      'folder' in args ? m.folders.includes(args.folder) : m.labels.includes(args.label),
    );
    const threads: VendorThread[] = inScope
      .sort((a, b) => b.received_at.localeCompare(a.received_at))
      .map((m) => ({
        thread_id: m.thread_id,
        last_message_uid: m.message_uid,
        subject: m.subject,
        message_count: 1,
        last_received_at: m.received_at,
        message_uids: [m.message_uid],
      }));
    return { threads, nextCursor: null };
  }

  async getMessages(ids: string[]) {
    this.calls.push('getMessages');
    await this.beforeGetMessages(ids);
    const found = ids.flatMap((id) => {
      const m = this.messages.get(id);
      return m ? [structuredClone(m)] : [];
    });
    return { messages: found, notFound: ids.filter((id) => !this.messages.has(id)) };
  }

  /**
   * The next write's answer is lost on the way back, after the vendor applied it or before it
   * did: the caller gets OutcomeUnknownError either way.
   */
  loseNextAnswer: 'after applying' | 'before applying' | null = null;

  private write(command: string, ids: string[], apply: (m: VendorMessage) => void): BulkResult {
    this.calls.push(command);
    const lost = this.loseNextAnswer;
    this.loseNextAnswer = null;
    const done = ids.filter((id) => this.messages.has(id));
    if (lost !== 'before applying') for (const id of done) apply(this.messages.get(id)!);
    if (lost) throw new OutcomeUnknownError(command, ids, { done: [], notFound: [] }, new Error('socket hang up'));
    return { done, notFound: ids.filter((id) => !this.messages.has(id)) };
  }

  async setFlags(ids: string[], change: FlagChange): Promise<BulkResult> {
    return this.write('setFlags', ids, (m) => Object.assign(m, change));
  }

  async label(ids: string[], change: { add?: string[]; remove?: string[] }): Promise<BulkResult> {
    return this.write('label', ids, (m) => {
      m.labels = [...m.labels.filter((l) => !change.remove?.includes(l)), ...(change.add ?? [])];
    });
  }

  async move(ids: string[], folder: string): Promise<BulkResult> {
    return this.write('move', ids, (m) => {
      m.folders = [folder];
    });
  }

  async readBack(ids: string[]) {
    this.calls.push('readBack');
    const found = ids.flatMap((id) => {
      const m = this.messages.get(id);
      return m ? [structuredClone({ ...m, body: undefined })] : [];
    });
    return { messages: found, notFound: ids.filter((id) => !this.messages.has(id)) };
  }

  asApi(): MailboxApi {
    return this as unknown as MailboxApi;
  }
}
