import {
  type Connector,
  type FlagChange,
  type FolderListing,
  type LabelChange,
  type ListScope,
  type MessagePage,
  OutcomeUnknownError,
  type WriteResult,
} from '../../src/domain/connector';
import type { MailMessage } from '../../src/domain/message';

/**
 * An in-memory connector for domain tests that need to hold a vendor answer back: messages
 * listed newest first. Not a second sandbox: the domain's Connector, with hooks to pause it.
 */
export class FakeVendor implements Connector {
  readonly mailbox = 'me@example.com';
  readonly labelsKeptEmpty = false;
  readonly messages = new Map<string, MailMessage>();
  /** Calls by method name, as the domain made them. */
  readonly calls: string[] = [];
  /** Called before getMessages answers; a test may return a promise to hold the answer back. */
  beforeGetMessages: (ids: string[]) => Promise<void> | void = () => undefined;
  beforeFolderList: () => Promise<void> | void = () => undefined;

  add(uid: string, folder = 'INBOX', receivedAt = new Date(Date.UTC(2024, 0, 1) + this.messages.size * 60_000)): void {
    this.messages.set(uid, {
      id: uid,
      threadId: `t-${uid}`,
      messageId: `<${uid}@example.org>`,
      folders: [folder],
      labels: [],
      from: { address: 'sender@example.org', name: 'Sender' },
      to: [{ address: this.mailbox }],
      cc: [],
      bcc: [],
      references: [],
      subject: `message ${uid}`,
      seen: false,
      flagged: false,
      important: false,
      snoozedUntil: null,
      receivedAt: receivedAt.toISOString(),
      body: { html: `<p>${uid}</p>`, text: uid },
      attachments: [],
    });
  }

  async listFolders(): Promise<FolderListing> {
    this.calls.push('listFolders');
    await this.beforeFolderList();
    const folders = [...new Set([...this.messages.values()].flatMap((m) => m.folders))];
    return {
      folders: ['INBOX', ...folders.filter((f) => f !== 'INBOX')].map((name) => ({
        name,
        role: name === 'INBOX' ? 'inbox' : name === 'Drafts' ? 'drafts' : null,
        total: [...this.messages.values()].filter((m) => m.folders.includes(name)).length,
        unread: [...this.messages.values()].filter((m) => m.folders.includes(name) && !m.seen).length,
      })),
      labels: [...new Set([...this.messages.values()].flatMap((m) => m.labels))],
    };
  }

  /** Ids per listMessages page; all on one page unless a test sets it. */
  pageSize = Number.POSITIVE_INFINITY;

  async listMessages(scope: ListScope, cursor: string | null = null): Promise<MessagePage> {
    this.calls.push('listMessages');
    const ids = [...this.messages.values()]
      .filter((m) => ('folder' in scope ? m.folders.includes(scope.folder) : m.labels.includes(scope.label)))
      .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt))
      .map((m) => m.id);
    const from = Number(cursor ?? 0);
    const to = from + this.pageSize;
    return { ids: ids.slice(from, to), nextCursor: to < ids.length ? String(to) : null };
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

  private write(command: string, ids: string[], apply: (m: MailMessage) => void): WriteResult {
    this.calls.push(command);
    const lost = this.loseNextAnswer;
    this.loseNextAnswer = null;
    const done = ids.filter((id) => this.messages.has(id));
    if (lost !== 'before applying') for (const id of done) apply(this.messages.get(id)!);
    if (lost) throw new OutcomeUnknownError(command, ids, { done: [], notFound: [] }, new Error('socket hang up'));
    return { done, notFound: ids.filter((id) => !this.messages.has(id)) };
  }

  async setFlags(ids: string[], change: FlagChange): Promise<WriteResult> {
    return this.write('setFlags', ids, (m) => Object.assign(m, change));
  }

  async label(ids: string[], change: LabelChange): Promise<WriteResult> {
    return this.write('label', ids, (m) => {
      m.labels = [...m.labels.filter((l) => !change.remove?.includes(l)), ...(change.add ?? [])];
    });
  }

  async move(ids: string[], folder: string): Promise<WriteResult> {
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

  async search(text: string, folder: string | null): Promise<string[]> {
    this.calls.push('search');
    const needle = text.toLowerCase();
    return [...this.messages.values()]
      .filter((m) => (folder === null || m.folders.includes(folder)) && m.body?.text.toLowerCase().includes(needle))
      .map((m) => m.id);
  }

  async attachment(): Promise<never> {
    throw new Error('the fake vendor holds no attachments');
  }

  async submit(): Promise<never> {
    throw new Error('the fake vendor sends nothing');
  }

  async submitMessage(): Promise<never> {
    throw new Error('the fake vendor sends nothing');
  }
}
