import { type CoreSession, type HookCallback, type IMAPServer, imapHandler } from '@mailbridge/imap-core';
import type { Logger } from '../log';
import {
  type Connection,
  type ConnectionHost,
  type FetchLineWriter,
  type MailboxBackend,
  MailboxRefused,
  type OpenedMailbox,
  type Session,
  type TransferUids,
  type UntaggedWriter,
} from './engine';
import type { FetchQueryItem } from './fetch-query';
import { toImapError } from './imap-error';
import { isActive, trackActivity } from './activity';
import { WireChunks } from './wire-chunks';
import { type MailboxEvents, NotifyFeed } from './notify-feed';
import { accountId } from '../model/account-id';

/**
 * The one module that speaks imap-core's hook convention: positional arguments, the session
 * and a callback last, results as callback tuples (`callback(null, true, info)`, or a string
 * code such as 'NONEXISTENT' for the engine's own refusals), untagged responses built with the
 * connection's formatResponse and written to its stream. Everything else in src/imap sees
 * the typed MailboxBackend, Session and UntaggedWriter of engine.ts.
 */

/** Untagged responses through the connection's formatResponse (sequence numbers, QRESYNC's VANISHED). */
class CoreUntagged implements UntaggedWriter {
  constructor(private readonly core: CoreSession) {}

  private write(chunk: unknown): Promise<void> {
    return new Promise((resolve) => this.core.writeStream.write(chunk, resolve));
  }

  fetchFlags(uid: number, values: { uid: number | false; flags: readonly string[] | false; modseq: number | false }) {
    const response = this.core.formatResponse('FETCH', uid, values);
    if (response) this.core.writeStream.write(response);
  }

  fetchValues(uid: number, query: readonly unknown[], values: unknown[], stream: boolean): Promise<void> | null {
    const response = this.core.formatResponse('FETCH', uid, { query, values });
    if (!response) return null;
    return this.write(stream ? imapHandler.compileStream(response) : { compiled: imapHandler.compiler(response) });
  }

  fetchLines(): FetchLineWriter {
    const sequence = sequenceNumbers(this.core);
    const out = new WireChunks();
    return {
      begin: (uid) => {
        const seq = sequence(uid);
        if (!seq) return null;
        out.text('* ');
        out.text(String(seq));
        out.text(' FETCH (');
        return out;
      },
      end: () => {
        out.text(')');
        out.endLine();
      },
      drop: () => out.dropLine(),
      flush: () => {
        const pieces = out.take();
        if (!pieces.length) return null;
        // the composer ends what it is given with CRLF: the last line goes without its own
        const last = pieces.length - 1;
        pieces[last] = pieces[last].subarray(0, pieces[last].length - 2);
        return this.write({ compiled: pieces });
      },
    };
  }

  expunge(uids: readonly number[], silent = false) {
    if (!silent) this.core.announceExpunged(uids);
    for (const uid of uids) {
      // formatResponse takes the UID out of the view, which a silent expunge must do as well
      const response = this.core.formatResponse('EXPUNGE', uid);
      if (response && !silent) this.core.writeStream.write(response);
    }
  }

  vanishedEarlier(uids: readonly number[], set: string) {
    const response = this.core.earlierVanished(uids, set);
    if (response) this.core.writeStream.write(response);
  }

  keywords(flags: readonly string[]) {
    this.core.announceKeywords(flags);
  }
}

/** The typed view of an imap-core session; its fields follow the engine's (SELECT replaces `selected`). */
class TypedSession implements Session {
  readonly untagged: UntaggedWriter;

  constructor(private readonly core: CoreSession) {
    this.untagged = new CoreUntagged(core);
  }

  get id() {
    return this.core.id;
  }

  get account() {
    // the engine calls the backend only once logged in
    if (!this.core.user) throw new Error('no account before login');
    return this.core.user.id;
  }

  get selected() {
    return this.core.selected;
  }

  get opening() {
    return this.core.opening ?? null;
  }

  utf8() {
    return this.core.isUTF8Enabled();
  }

  fetchValues(query: readonly FetchQueryItem[], message: Record<string, unknown>, options: Record<string, unknown>) {
    return this.core.getQueryResponse(query, message, options);
  }
}

/** An open client connection, as the listener needs it to dismiss or count it. */
export interface ClientConnection {
  readonly session: Connection;
  /** A command is being received or handled, or its answer is still being written. */
  busy(): boolean;
  /** Says `* BYE reason` and closes the connection. */
  bye(reason: string): void;
}

/** imap-core's connection object (imap-connection.js), the parts the listener needs. */
interface CoreConnection {
  session: CoreSession;
  /** Set while a command with a literal is still being received. */
  _currentCommand: unknown;
  writeStream: { readableLength: number };
  send(line: string): void;
  close(): void;
}

export function clientConnections(server: InstanceType<typeof IMAPServer>): ClientConnection[] {
  return [...(server.connections as Set<CoreConnection>)].map((c) => ({
    session: c.session,
    busy: () => !!c._currentCommand || isActive(c.session) || c.writeStream.readableLength > 0,
    bye: (reason) => {
      c.send(`* BYE ${reason}`);
      c.close();
    },
  }));
}

/** One typed Session per imap-core session, so per-session state (\Recent) can key on it. */
const sessions = new WeakMap<CoreSession, Session>();

export function sessionOf(core: CoreSession): Session {
  let session = sessions.get(core);
  if (!session) {
    session = new TypedSession(core);
    sessions.set(core, session);
  }
  return session;
}

/**
 * Binds `backend` and `host` to imap-core's hooks. A MailboxRefused becomes the engine's string
 * code; any other failure is answered with toImapError's code and text (the backend logs it).
 */
export function bindEngine(
  server: InstanceType<typeof IMAPServer>,
  backend: MailboxBackend,
  host: ConnectionHost,
  logger: Logger,
  events: MailboxEvents,
): void {
  /** Runs a backend call and answers the callback with `encode` of its result. */
  const answer =
    <R>(command: string, core: CoreSession, callback: HookCallback, encode: (result: R) => unknown[]) =>
    (work: Promise<R>) => {
      trackActivity(core, work)
        .then(
          (result) => callback(null, ...encode(result)),
          (err: unknown) => (err instanceof MailboxRefused ? callback(null, err.code) : callback(toImapError(err))),
        )
        // a failure while imap-core writes the answer still ends the command with one
        .catch((err: unknown) => {
          logger.error({ command, err: (err as Error)?.message }, 'imap answer failed');
          callback(toImapError(err));
        })
        .catch((err: unknown) => logger.error({ command, err: (err as Error)?.message }, 'imap answer failed'));
    };
  const done = (): unknown[] => [true];
  const copyUid = (uids: TransferUids) => [
    true,
    { uidValidity: uids.uidValidity, sourceUid: uids.sourceUids, destinationUid: uids.destinationUids },
  ];

  server.onConnect = (core, callback) => {
    try {
      host.connect(core);
    } catch (err) {
      return callback(err as Error);
    }
    callback();
  };
  const notify = new NotifyFeed(events, logger);
  server.onClose = (core, callback) => {
    notify.set(core, null);
    backend.close(sessionOf(core));
    host.closed(core);
    callback();
  };
  server.onAuth = (login, core, callback) => {
    host.login(login, core).then(
      (result) => (result ? callback(null, result) : callback(null)),
      // imap-core would answer an error without an IMAP response as "NO [TEMPFAIL] LOGIN completed"
      (err: unknown) => callback(toImapError(err)),
    );
  };

  server.onList = (_query, core, cb) => answer('LIST', core, cb, (list) => [list])(backend.list(sessionOf(core)));
  server.onLsub = (_query, core, cb) => answer('LSUB', core, cb, (list) => [list])(backend.lsub(sessionOf(core)));
  server.onSubscribe = (path, core, cb) =>
    answer('SUBSCRIBE', core, cb, done)(backend.subscribe(sessionOf(core), path));
  server.onUnsubscribe = (path, core, cb) =>
    answer('UNSUBSCRIBE', core, cb, done)(backend.unsubscribe(sessionOf(core), path));
  server.onStatus = (path, items, core, cb) =>
    answer('STATUS', core, cb, (status) => [status])(backend.status(sessionOf(core), path, items));
  server.onCreate = (path, core, cb) => answer('CREATE', core, cb, done)(backend.create(sessionOf(core), path));
  server.onRename = (path, newPath, core, cb) =>
    answer('RENAME', core, cb, done)(backend.rename(sessionOf(core), path, newPath));
  server.onDelete = (path, core, cb) => answer('DELETE', core, cb, done)(backend.delete(sessionOf(core), path));

  server.onOpen = (path, core, cb) =>
    answer('SELECT', core, cb, (opened: OpenedMailbox) => [
      {
        _id: opened.key,
        recent: opened.recent,
        ...opened.resync,
        unseen: opened.unseen,
        specialUse: opened.specialUse,
        uidValidity: opened.uidValidity,
        uidNext: opened.uidNext,
        modifyIndex: opened.highestModseq,
        mailboxId: opened.mailboxId,
        uidList: opened.uids,
        flags: opened.flags,
      },
    ])(backend.open(sessionOf(core), path));

  server.onFetch = (mailbox, options, core, cb) =>
    answer('FETCH', core, cb, done)(backend.fetch(sessionOf(core), mailbox, options));
  server.onStore = (mailbox, update, core, cb) =>
    answer('STORE', core, cb, (modified: number[]) => [true, modified])(
      backend.store(sessionOf(core), mailbox, update),
    );
  server.onCopy = (_connection, mailbox, update, core, cb) =>
    answer('COPY', core, cb, copyUid)(backend.copy(sessionOf(core), mailbox, update));
  server.onMove = (mailbox, update, core, cb) =>
    answer('MOVE', core, cb, copyUid)(backend.move(sessionOf(core), mailbox, update));
  server.onExpunge = (mailbox, update, core, cb) =>
    answer('EXPUNGE', core, cb, done)(backend.expunge(sessionOf(core), mailbox, update));
  server.onAppend = (path, flags, date, message, core, cb) =>
    answer('APPEND', core, cb, (appended: { uidValidity: number; uid: number }) => [true, appended])(
      backend.append(sessionOf(core), path, flags, date ? new Date(date) : undefined, message),
    );

  server.onSearch = (mailbox, options, core, cb) =>
    answer('SEARCH', core, cb, (found) => [found])(
      backend.search(sessionOf(core), mailbox, options.query, options.context),
    );
  // capabilities: without the hook the engine neither offers nor runs the command
  const { sort, thread, appendAll, catenate } = backend;
  if (appendAll)
    server.onMultiAppend = (path, messages, core, cb) =>
      answer('APPEND', core, cb, (appended: { uidValidity: number; uids: number[] }) => [true, appended])(
        appendAll.call(
          backend,
          sessionOf(core),
          path,
          messages.map((m) => ({ flags: m.flags, date: m.date ? new Date(m.date) : undefined, message: m.raw })),
        ),
      );
  if (catenate)
    server.onCatenate = (path, messages, core, cb) =>
      answer('APPEND', core, cb, (appended: { uidValidity: number; uids: number[] }) => [true, appended])(
        catenate.call(
          backend,
          sessionOf(core),
          path,
          messages.map((m) => ({ ...m, date: m.date ? new Date(m.date) : undefined })),
          // read at each command: a reload changes it
          Number(server.options.maxMessage),
        ),
      );
  if (sort)
    server.onSort = (mailbox, options, core, cb) =>
      answer('SORT', core, cb, (found) => [found])(
        sort.call(backend, sessionOf(core), mailbox, options.query, options.sort, options.context),
      );
  if (thread)
    server.onThread = (mailbox, options, core, cb) =>
      answer('THREAD', core, cb, (found) => [found])(
        thread.call(backend, sessionOf(core), mailbox, options.query, options.algorithm),
      );

  server.onRecentCount = (core) => backend.recentCount(sessionOf(core));
  // NOTIFY (RFC 5465): the engine says when a session starts or stops; the changes come from the domain
  server.onNotify = (spec, core) => {
    const session = sessionOf(core);
    notify.set(
      core,
      spec
        ? {
            account: accountId(session.account),
            selectedKey: () => (core.selected ? core.selected.mailbox : null),
            folderPath: (key) => backend.folderPath(session, key),
            messages: (path, changed) => core.notifyMailbox(path, changed),
            name: (change) => core.notifyMailboxName(change),
          }
        : null,
    );
  };
}

/**
 * Sequence numbers as formatResponse finds them (position in uidList, 0 when absent), in
 * constant time for rows that come in the list's order (both are in UID order): the next
 * position is tried first. Out of order, the first search scans like imap-core; later ones
 * use an index of the list, checked against it as it may have changed meanwhile.
 */
function sequenceNumbers(session: CoreSession): (uid: number) => number {
  let next = 0;
  let misses = 0;
  let index: Map<number, number> | undefined;
  return (uid) => {
    const list = session.selected ? session.selected.uidList : [];
    let i = next;
    if (list[i] !== uid) {
      if (++misses > 1) {
        index ??= indexOf(list);
        i = index.get(uid) ?? -1;
      }
      if (list[i] !== uid) i = list.indexOf(uid);
    }
    if (i >= 0) next = i + 1;
    return i + 1;
  };
}

/** uid -> position, the first one like indexOf. */
function indexOf(list: readonly number[]): Map<number, number> {
  const index = new Map<number, number>();
  for (let i = list.length - 1; i >= 0; i--) index.set(list[i], i);
  return index;
}
