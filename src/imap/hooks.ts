import { performance } from 'node:perf_hooks';
import type { Logger } from '../log';
import type { AccountRegistry } from '../domain/account-registry';
import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { toImapError } from './imap-error';
import { StoreUnavailableError } from '../store/store-errors';
import { folderKey, splitFolderKey } from '../model/folder-key';
import {
  type ExpungeUpdate,
  type FetchOptions,
  type AppendMessage,
  type CatenateMessage,
  type ListEntry,
  type MailboxBackend,
  MailboxRefused,
  type SearchQuery,
  type Session,
  type StoreUpdate,
  type ThreadAlgorithm,
  type TransferUpdate,
} from './engine';
import { buildMessage } from './catenate';
import { fetchMessages } from './fetch';
import { folderFlags } from './folder-flags';
import { folderSize } from './folder-size';
import { mailboxId } from './object-ids';
import { resync, vanishedSince } from './qresync';
import type { RecentMessages } from './recent';
import { searchMessages } from './search-handler';
import { sortedSearch, threadedSearch } from './ordered-search';
import type { SortCriterion } from './sort';
import { refuseInvalidKeywords, storeFlags } from './store-handler';

/**
 * The bridge's MailboxBackend (engine.ts): each command resolves the session's account view,
 * runs its handler, waits until the store holds what it changed, and turns a failure into a
 * typed ImapError, which the engine answers with its code and reason (see imap-error.ts).
 */

/** How long one command's work took (from its start to its answer), for metrics. */
export type CommandObserver = (command: string, seconds: number, ok: boolean) => void;

/**
 * Commands that change the vendor. Their vendor write goes out only when the store answers
 * (domain/store-checked-writes.ts); one the vendor accepted stays made though the store failed
 * right after, so the client hears OK: the change is kept here and stored once the store is back.
 */
const vendorWrites = new Set(['store', 'move', 'copy', 'expunge', 'rename', 'delete']);

/** The IMAP command a method serves: the engine opens a folder for both SELECT and EXAMINE. */
const commandOf = (name: string) => (name === 'open' ? 'SELECT' : name.toUpperCase());

export function mailboxBackend(
  accounts: AccountRegistry,
  logger: Logger,
  recent: RecentMessages,
  onCommand: CommandObserver = () => undefined,
): MailboxBackend {
  /** Runs `fn` on the session's account view, observed, logged, and once the store holds its changes. */
  const command =
    <A extends unknown[], R>(name: string, fn: (view: AccountView, session: Session, ...args: A) => Promise<R>) =>
    async (session: Session, ...args: A): Promise<R> => {
      const view = accounts.get(session.account);
      if (!view) throw new MailboxRefused('NONEXISTENT');
      const started = performance.now();
      const observe = (ok: boolean) => onCommand(commandOf(name), (performance.now() - started) / 1000, ok);
      const committed = () =>
        view.committed().catch((err: unknown) => {
          if (!vendorWrites.has(name) || !(err instanceof StoreUnavailableError)) throw err;
          logger.warn(
            { hook: name, account: session.account, err: err.message },
            'the vendor made the change; it is stored once the database answers again',
          );
        });
      try {
        const result = await fn(view, session, ...args).catch(async (err: unknown) => {
          // a folder that is not there is an answer, not a failure
          if (err instanceof MailboxRefused) await committed();
          // what a failed command changed is published once durable: before its answer, so
          // the session's next command hears of it; the failure stays the answer
          else await view.committed().catch(() => undefined);
          throw err;
        });
        await committed();
        observe(true);
        return result;
      } catch (err) {
        if (err instanceof MailboxRefused) {
          observe(true);
          throw err;
        }
        observe(false);
        const failure = toImapError(err);
        logger[failure.code === 'SERVERBUG' ? 'error' : 'warn'](
          { hook: name, account: session.account, code: failure.code, err: (err as Error)?.message },
          'imap operation failed',
        );
        throw failure;
      }
    };

  /** The session's \Recent messages, after it claimed those that arrived since it last looked. */
  const claimRecent = (session: Session): ReadonlySet<number> => {
    if (session.selected) recent.claimNew(session, session.selected.uidList);
    return recent.of(session);
  };

  /** A folder the command names, or the engine's refusal. */
  const named = async (
    view: AccountView,
    path: string,
    missing: MailboxRefused['code'] = 'NONEXISTENT',
    opening = false,
  ) => {
    const folder = await view.folder(path, opening);
    if (!folder) throw new MailboxRefused(missing);
    return folder;
  };

  /** The selected folder of a session (commands after SELECT name it by its key). */
  const selected = async (view: AccountView, key: string): Promise<ImapFolder> => {
    const folder = await view.folderByKey(splitFolderKey(key).folder);
    if (!folder) throw new MailboxRefused('NONEXISTENT');
    return folder;
  };

  /** APPEND's folder (TRYCREATE when missing), met first (RecentMessages.meet): what it adds is recent for the first SELECT. */
  const appendTarget = async (view: AccountView, path: string): Promise<ImapFolder> => {
    const folder = await named(view, path, 'TRYCREATE');
    const { uidNext, uidValidity } = view.localStatus(folder);
    recent.meet(folderKey(view.account, folder.key), { uid: uidNext - 1, uidValidity });
    return folder;
  };

  const listed = async (view: AccountView) => (await view.folders()).map(toListEntry);

  /** COPY and MOVE: the selected folder, then the destination, which must exist (TRYCREATE). */
  const transferFolders = async (view: AccountView, key: string, destination: string) => {
    const folder = await view.folderByKey(splitFolderKey(key).folder);
    const target = await view.destination(destination);
    if (!folder) throw new MailboxRefused('NONEXISTENT');
    if (!target) throw new MailboxRefused('TRYCREATE');
    return { folder, target };
  };

  return {
    list: command('list', listed),
    // every folder counts as subscribed: the vendor has no subscription concept
    lsub: command('lsub', listed),
    subscribe: command('subscribe', async (view, _s, path: string) => {
      await named(view, path);
    }),
    unsubscribe: command('unsubscribe', async (view, _s, path: string) => {
      await named(view, path);
    }),

    status: command('status', async (view, session, path: string, items: readonly string[]) => {
      const folder = await named(view, path);
      const s = await view.status(folder);
      const size = items.includes('SIZE') ? await folderSize(view, folder) : undefined;
      return {
        messages: s.messages,
        recent: recent.status(session, folderKey(view.account, folder.key), () =>
          view.allRows(folder).map((r) => r.uid),
        ),
        uidNext: s.uidNext,
        uidValidity: s.uidValidity,
        unseen: s.unseen,
        highestModseq: s.highestModseq,
        size,
        mailboxId: mailboxId(view.account, folder, s.uidValidity),
      };
    }),

    folderPath: async (session: Session, key: string) => {
      const folder = await accounts.get(session.account)?.folderByKey(splitFolderKey(key).folder);
      return folder?.path ?? null;
    },

    // label folders only; the rest is refused with the reason (domain/label-folders.ts)
    create: command('create', (view, _s, path: string) => view.createFolder(path)),
    rename: command('rename', (view, _s, path: string, newPath: string) => view.renameFolder(path, newPath)),
    delete: command('delete', (view, _s, path: string) => view.deleteFolder(path)),

    open: command('open', async (view, session, path: string) => {
      const folder = await named(view, path, 'NONEXISTENT', true);
      const before = view.localStatus(folder);
      const known = { uid: before.uidNext - 1, uidValidity: before.uidValidity };
      const opened = await view.open(folder);
      const key = folderKey(view.account, folder.key);
      const recentCount = recent.open(session, key, opened.uids, known, session.opening?.readOnly === true);
      const qresync = session.opening?.qresync;
      return {
        key,
        recent: recentCount,
        resync: qresync ? resync(view, folder, opened, qresync, recent.of(session)) : undefined,
        unseen: opened.rows.findIndex((r) => !r.flags.includes('\\Seen')) + 1,
        specialUse: folder.specialUse,
        uidValidity: opened.uidValidity,
        uidNext: opened.uidNext,
        highestModseq: opened.highestModseq,
        mailboxId: mailboxId(view.account, folder, opened.uidValidity),
        uids: opened.uids,
        flags: folderFlags(opened.rows),
      };
    }),

    fetch: command('fetch', async (view, session, key: string, options: FetchOptions) => {
      const folder = await selected(view, key);
      if (options.vanished && options.changedSince) {
        // UID FETCH ... (CHANGEDSINCE m VANISHED): the expunged UIDs of the set, before the FETCH answers
        const held = view.allRows(folder).map((r) => r.uid);
        const gone = vanishedSince(view, folder, options.changedSince, held, view.localStatus(folder).uidNext);
        session.untagged.vanishedEarlier(gone, options.vanished);
      }
      await fetchMessages(view, folder, options, session, claimRecent(session));
    }),

    store: command('store', async (view, session, key: string, update: StoreUpdate) => {
      const folder = await selected(view, key);
      return storeFlags(view, folder, update, session, claimRecent(session));
    }),

    move: command('move', async (view, session, key: string, update: TransferUpdate) => {
      const { folder, target } = await transferFolders(view, key, update.destination);
      const outcome = await view.move(folder, view.rows(folder, update.messages), target, session.id);
      session.untagged.expunge(outcome.expunged);
      return transferUids(outcome);
    }),

    // COPY into a Labels/ view adds the label; into a folder it is refused (see AccountView.copy)
    copy: command('copy', async (view, _s, key: string, update: TransferUpdate) => {
      const { folder, target } = await transferFolders(view, key, update.destination);
      return transferUids(await view.copy(folder, view.rows(folder, update.messages), target));
    }),

    expunge: command('expunge', async (view, session, key: string, update: ExpungeUpdate) => {
      const folder = await selected(view, key);
      const expunged = await view.expungeDeleted(folder, update.isUid ? (update.messages ?? []) : null, session.id);
      session.untagged.expunge(expunged, update.silent);
    }),

    append: command(
      'append',
      async (view, _s, path: string, flags: string[], date: Date | undefined, message: Buffer) => {
        refuseInvalidKeywords(flags);
        const folder = await appendTarget(view, path);
        const appended = await view.append(folder, message, flags, date ?? new Date());
        return { uidValidity: appended.uidValidity, uid: appended.uid };
      },
    ),

    appendAll: command('append', async (view, _s, path: string, messages: readonly AppendMessage[]) => {
      for (const m of messages) refuseInvalidKeywords(m.flags);
      const folder = await appendTarget(view, path);
      const now = new Date();
      return view.appendAll(
        folder,
        messages.map((m) => ({ raw: m.message, flags: m.flags, idate: m.date ?? now })),
      );
    }),

    // CATENATE (RFC 4469): Drafts only, as APPEND; each message built, then all stored or none
    catenate: command(
      'append',
      async (view, session, path: string, messages: readonly CatenateMessage[], limit: number) => {
        for (const m of messages) refuseInvalidKeywords(m.flags);
        const folder = await appendTarget(view, path);
        view.refuseAppendHere(folder);
        const selectedFolder = session.selected && (await selected(view, session.selected.mailbox));
        const base = selectedFolder ? selectedFolder.path : null;
        const now = new Date();
        const built = [];
        for (const m of messages)
          built.push({ raw: await buildMessage(view, m, base, limit), flags: m.flags, idate: m.date ?? now });
        return view.appendAll(folder, built);
      },
    ),

    search: command('search', async (view, session, key: string, query: SearchQuery, context?: object) => {
      const folder = await selected(view, key);
      return searchMessages(view, folder, query, session, claimRecent(session), context);
    }),

    sort: command(
      'sort',
      async (view, session, key: string, query: SearchQuery, sort: SortCriterion[], context?: object) => {
        const folder = await selected(view, key);
        return sortedSearch(view, folder, { query, sort, context }, session, claimRecent(session));
      },
    ),

    thread: command('thread', async (view, session, key: string, query: SearchQuery, algorithm: ThreadAlgorithm) => {
      const folder = await selected(view, key);
      return threadedSearch(view, folder, { query, algorithm }, session, claimRecent(session));
    }),

    // the RECENT count the engine announces when it changed (new messages, expunged recent ones)
    recentCount: (session) => recent.count(session),
    close: (session) => recent.leave(session),
  };
}

function transferUids(outcome: { uidValidity: number; sourceUids: number[]; destinationUids: number[] }) {
  return { uidValidity: outcome.uidValidity, sourceUids: outcome.sourceUids, destinationUids: outcome.destinationUids };
}

function toListEntry(f: ImapFolder): ListEntry {
  return { path: f.path, specialUse: f.specialUse, flags: [], delimiter: '/' };
}
