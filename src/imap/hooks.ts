import { performance } from 'node:perf_hooks';
import type { IMAPServer } from '@mailbridge/imap-core';
import type { Logger } from '../log';
import type { AccountRegistry } from '../domain/account-registry';
import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import { toImapError } from './imap-error';
import { StoreUnavailableError } from '../store/store-errors';
import { trackActivity } from './activity';
import { folderKey, splitFolderKey } from '../model/folder-key';
import type { ImapSession } from './session';
import { fetchMessages, type FetchOptions } from './fetch';
import { folderFlags } from './folder-flags';
import { folderSize } from './folder-size';
import { mailboxId } from './object-ids';
import { resync, vanishedSince } from './qresync';
import type { RecentMessages } from './recent';
import { searchMessages } from './search-handler';
import { sortedSearch, threadedSearch } from './ordered-search';
import type { SortCriterion } from './sort';
import { refuseInvalidKeywords, storeFlags, type StoreUpdate } from './store-handler';

/**
 * imap-core hook wiring. Every hook resolves the session's account view, runs an async
 * handler, and hands a failure to imap-core as a typed ImapError, which imap-core answers
 * with its code and reason (see imap-error.ts). Hooks never throw into imap-core.
 */

type Callback = (err: Error | null, ...results: unknown[]) => void;

/** How long one command's work took (from its hook's start to its callback), for metrics. */
export type CommandObserver = (command: string, seconds: number, ok: boolean) => void;

/**
 * Hooks that change the vendor. Their vendor write goes out only when the store answers
 * (domain/store-checked-writes.ts); one the vendor accepted stays made though the store failed
 * right after, so the client hears OK: the change is kept here and stored once the store is back.
 */
const vendorWrites = new Set(['store', 'move', 'copy', 'expunge', 'rename', 'delete']);

/** The IMAP command a hook serves: imap-core opens a folder for both SELECT and EXAMINE. */
const commandOf = (hookName: string) => (hookName === 'open' ? 'SELECT' : hookName.toUpperCase());

export function installHooks(
  server: InstanceType<typeof IMAPServer>,
  accounts: AccountRegistry,
  logger: Logger,
  recent: RecentMessages,
  onCommand: CommandObserver = () => undefined,
): void {
  /** Runs `fn` and maps its result or failure onto imap-core's callback convention. */
  const hook =
    <A extends unknown[]>(
      name: string,
      fn: (view: AccountView, session: ImapSession, ...args: A) => Promise<unknown[]>,
    ) =>
    (...raw: unknown[]) => {
      const callback = raw.pop() as Callback;
      const session = raw.pop() as ImapSession;
      const view = accounts.get(session.user.id);
      if (!view) return callback(null, 'NONEXISTENT');
      const started = performance.now();
      const observe = (ok: boolean) => onCommand(commandOf(name), (performance.now() - started) / 1000, ok);
      const fail = (err: unknown) => {
        observe(false);
        const failure = toImapError(err);
        logger[failure.code === 'SERVERBUG' ? 'error' : 'warn'](
          { hook: name, account: session.user.id, code: failure.code, err: (err as Error)?.message },
          'imap operation failed',
        );
        callback(failure);
      };
      const done = fn(view, session, ...(raw as A)).then(async (results) => {
        await view.committed().catch((err: unknown) => {
          if (!vendorWrites.has(name) || !(err instanceof StoreUnavailableError)) throw err;
          logger.warn(
            { hook: name, account: session.user.id, err: err.message },
            'the vendor made the change; it is stored once the database answers again',
          );
        });
        return results;
      });
      trackActivity(session, done)
        .then((results) => {
          observe(true);
          callback(null, ...results);
        })
        // a failure while imap-core writes the results still ends the command with an answer
        .catch(fail)
        .catch((err: unknown) =>
          logger.error({ hook: name, account: session.user.id, err: (err as Error)?.message }, 'imap answer failed'),
        );
    };

  // the RECENT count imap-core announces when it changed (new messages, expunged recent ones)
  server.onRecentCount = (session: ImapSession) => recent.count(session);

  /** The session's \Recent messages, after it claimed those that arrived since it last looked. */
  const claimRecent = (session: ImapSession): ReadonlySet<number> => {
    if (session.selected) recent.claimNew(session, session.selected.uidList);
    return recent.of(session);
  };

  /** The selected folder of a session (hooks after SELECT receive the folder key). */
  const selected = async (view: AccountView, key: string): Promise<ImapFolder | null> =>
    view.folderByKey(splitFolderKey(key).folder);

  server.onList = hook('list', async (view) => [(await view.folders()).map(toListEntry)]);
  // every folder counts as subscribed: the vendor has no subscription concept
  server.onLsub = hook('lsub', async (view) => [(await view.folders()).map(toListEntry)]);
  server.onSubscribe = hook('subscribe', async (view, _s, path: string) => [
    (await view.folder(path)) ? true : 'NONEXISTENT',
  ]);
  server.onUnsubscribe = hook('unsubscribe', async (view, _s, path: string) => [
    (await view.folder(path)) ? true : 'NONEXISTENT',
  ]);

  server.onStatus = hook('status', async (view, session, path: string, items: string[]) => {
    const folder = await view.folder(path);
    if (!folder) return ['NONEXISTENT'];
    const s = await view.status(folder);
    const size = items.includes('SIZE') ? await folderSize(view, folder) : undefined;
    return [
      {
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
      },
    ];
  });

  server.onOpen = hook('open', async (view, session, path: string) => {
    const folder = await view.folder(path);
    if (!folder) return ['NONEXISTENT'];
    const known = view.localStatus(folder).uidNext - 1;
    const opened = await view.open(folder);
    const key = folderKey(view.account, folder.key);
    const recentCount = recent.open(session, key, opened.uids, known, session.opening?.readOnly === true);
    const qresync = session.opening?.qresync;
    return [
      {
        _id: key,
        recent: recentCount,
        // SELECT (QRESYNC ...): what the client missed, sent by imap-core after the usual answer
        ...(qresync ? resync(view, folder, opened, qresync, recent.of(session)) : {}),
        // the sequence number of the first message without \Seen, for OK [UNSEEN n]
        unseen: opened.rows.findIndex((r) => !r.flags.includes('\\Seen')) + 1,
        specialUse: folder.specialUse,
        uidValidity: opened.uidValidity,
        uidNext: opened.uidNext,
        modifyIndex: opened.highestModseq,
        mailboxId: mailboxId(view.account, folder, opened.uidValidity),
        uidList: opened.uids,
        flags: folderFlags(opened.rows),
      },
    ];
  });

  server.onFetch = hook('fetch', async (view, session, key: string, options: FetchOptions) => {
    const folder = await selected(view, key);
    if (!folder) return ['NONEXISTENT'];
    if (options.vanished && options.changedSince) {
      // UID FETCH ... (CHANGEDSINCE m VANISHED): the expunged UIDs of the set, before the FETCH answers
      const held = view.allRows(folder).map((r) => r.uid);
      const gone = vanishedSince(view, folder, options.changedSince, held, view.localStatus(folder).uidNext);
      const response = session.earlierVanished(gone, options.vanished);
      if (response) session.writeStream.write(response);
    }
    await fetchMessages(view, folder, options, session, claimRecent(session));
    return [true];
  });

  server.onStore = hook('store', async (view, session, key: string, update: StoreUpdate) => {
    const folder = await selected(view, key);
    if (!folder) return ['NONEXISTENT'];
    const modified = await storeFlags(view, folder, update, session, claimRecent(session));
    return [true, modified];
  });

  server.onMove = hook(
    'move',
    async (view, session, key: string, update: { destination: string; messages: number[] }) => {
      const folder = await selected(view, key);
      const target = await view.destination(update.destination);
      if (!folder) return ['NONEXISTENT'];
      if (!target) return ['TRYCREATE'];
      const outcome = await view.move(folder, view.rows(folder, update.messages), target, session.id);
      for (const uid of outcome.expunged) {
        const response = session.formatResponse('EXPUNGE', uid);
        if (response) session.writeStream.write(response);
      }
      return [
        true,
        { uidValidity: outcome.uidValidity, sourceUid: outcome.sourceUids, destinationUid: outcome.destinationUids },
      ];
    },
  );

  // COPY into a Labels/ view adds the label; into a folder it is refused (see AccountView.copy)
  server.onCopy = hook(
    'copy',
    async (view, _s, _connection: unknown, key: string, update: { destination: string; messages: number[] }) => {
      const folder = await selected(view, key);
      const target = await view.destination(update.destination);
      if (!folder) return ['NONEXISTENT'];
      if (!target) return ['TRYCREATE'];
      const outcome = await view.copy(folder, view.rows(folder, update.messages), target);
      return [
        true,
        { uidValidity: outcome.uidValidity, sourceUid: outcome.sourceUids, destinationUid: outcome.destinationUids },
      ];
    },
  );

  server.onExpunge = hook(
    'expunge',
    async (view, session, key: string, update: { isUid: boolean; messages?: number[]; silent?: boolean }) => {
      const folder = await selected(view, key);
      if (!folder) return ['NONEXISTENT'];
      const expunged = await view.expungeDeleted(folder, update.isUid ? (update.messages ?? []) : null, session.id);
      for (const uid of expunged) {
        const response = session.formatResponse('EXPUNGE', uid);
        if (response && !update.silent) session.writeStream.write(response);
      }
      return [true];
    },
  );

  server.onAppend = hook(
    'append',
    async (view, _s, path: string, flags: string[], date: string | Date | undefined, raw: Buffer) => {
      refuseInvalidKeywords(flags);
      const folder = await view.folder(path);
      if (!folder) return ['TRYCREATE'];
      const appended = await view.append(folder, raw, flags, date ? new Date(date) : new Date());
      return [true, { uidValidity: appended.uidValidity, uid: appended.uid }];
    },
  );

  // label folders only; the rest is refused with the reason (domain/label-folders.ts)
  server.onCreate = hook('create', async (view, _s, path: string) => {
    await view.createFolder(path);
    return [true];
  });
  server.onRename = hook('rename', async (view, _s, path: string, newPath: string) => {
    await view.renameFolder(path, newPath);
    return [true];
  });
  server.onDelete = hook('delete', async (view, _s, path: string) => {
    await view.deleteFolder(path);
    return [true];
  });

  server.onSearch = hook('search', async (view, session, key: string, options: { query: unknown[] }) => {
    const folder = await selected(view, key);
    if (!folder) return ['NONEXISTENT'];
    return [await searchMessages(view, folder, options.query, session, claimRecent(session))];
  });

  server.onSort = hook(
    'sort',
    async (view, session, key: string, options: { query: unknown[]; sort: SortCriterion[] }) => {
      const folder = await selected(view, key);
      if (!folder) return ['NONEXISTENT'];
      return [await sortedSearch(view, folder, options, session, claimRecent(session))];
    },
  );

  server.onThread = hook(
    'thread',
    async (view, session, key: string, options: { query: unknown[]; algorithm: 'orderedsubject' | 'references' }) => {
      const folder = await selected(view, key);
      if (!folder) return ['NONEXISTENT'];
      return [await threadedSearch(view, folder, options, session, claimRecent(session))];
    },
  );
}

function toListEntry(f: ImapFolder) {
  return { path: f.path, specialUse: f.specialUse, flags: [], delimiter: '/' };
}
