import type { Logger } from '../log';
import type { AccountId } from '../model/account-id';
import type { FolderChange, MailboxEvent, MailboxNameChange } from '../domain/changes';

/**
 * IMAP NOTIFY (RFC 5465) for mailboxes a session has not selected: while a session has a
 * NOTIFY SET, it hears of every change the domain publishes for its account (the change
 * journal's `watch`), as the engine's events: a folder's journal entries become MessageNew,
 * MessageExpunge or FlagChange of its IMAP name; a created, deleted or renamed label folder a
 * MailboxName change. The engine matches them against what the session asked, keeps them
 * (bounded) and sends STATUS or LIST. The selected folder is left to the engine's own journal
 * reading (EXISTS, EXPUNGE, FETCH).
 */

/** The domain's publications, as the change journal gives them. */
export interface MailboxEvents {
  watch(account: AccountId, listener: (event: MailboxEvent) => void): () => void;
}

/** One session with NOTIFY, as the engine adapter gives it. */
export interface NotifyTarget {
  readonly account: AccountId;
  /** The selected folder's journal key (folderKey()), or null. */
  selectedKey(): string | null;
  /** The IMAP name of a folder's journal key, null once the folder is gone. */
  folderPath(key: string): Promise<string | null>;
  messages(path: string, events: readonly MessageEvent[]): void;
  name(change: MailboxNameChange): void;
}

export type MessageEvent = 'MessageNew' | 'MessageExpunge' | 'FlagChange';

const eventOf: Record<FolderChange['command'], MessageEvent> = {
  EXISTS: 'MessageNew',
  EXPUNGE: 'MessageExpunge',
  FETCH: 'FlagChange',
};

export class NotifyFeed {
  private readonly watching = new Map<unknown, () => void>();

  constructor(
    private readonly events: MailboxEvents,
    private readonly logger: Logger,
  ) {}

  /** The session `id` starts (target) or stops (null) hearing of its account's mailboxes. */
  set(id: unknown, target: NotifyTarget | null): void {
    this.watching.get(id)?.();
    this.watching.delete(id);
    if (target)
      this.watching.set(
        id,
        this.events.watch(target.account, (event) => this.deliver(target, event)),
      );
  }

  /** Runs inside the journal's publication: a failure here is logged, never thrown back into it. */
  private deliver(target: NotifyTarget, event: MailboxEvent): void {
    const failed = (err: unknown) =>
      this.logger.warn({ err: (err as Error)?.message }, 'NOTIFY: a change could not be reported to a session');
    try {
      if (event.kind === 'name') {
        target.name(event.change);
        return;
      }
      if (event.mailbox === target.selectedKey()) return;
      const events = [...event.commands].map((c) => eventOf[c]);
      target
        .folderPath(event.mailbox)
        .then((path) => {
          if (path !== null) target.messages(path, events);
        })
        .catch(failed);
    } catch (err) {
      failed(err);
    }
  }
}
