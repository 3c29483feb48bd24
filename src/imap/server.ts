import type { AddressInfo } from 'node:net';
import { IMAPServer } from '@mailbridge/imap-core';
import { setReporter } from '@mailbridge/imap-core/lib/errors';
import type { LoginGuard } from '../auth/login-guard';
import type { Config, Limits } from '../config';
import type { Logger } from '../log';
import { handshakeLogger, imapCoreLogger } from './tls-failure';
import { ConnectionGate, tooManyConnections } from '../listen/connection-gate';
import { dismissWhenIdle } from '../listen/drain';
import { LoginDeadlines } from '../listen/login-deadline';
import { type TlsPair, tlsPolicy } from '../tls';
import type { AccountRegistry } from '../domain/account-registry';
import type { ChangeJournal } from '../domain/change-journal';
import { authHook, type OwnerRoute } from './auth-hook';
import { type CommandObserver, mailboxBackend } from './hooks';
import { bindEngine, clientConnections } from './engine-adapter';
import type { ConnectionHost } from './engine';
import { RecentMessages } from './recent';
import { offersCompression } from './compression-offer';
import { accountId } from '../model/account-id';

export interface ImapServerOptions {
  host: string;
  port: number;
  /** Implicit-TLS port, or null for none. */
  securePort: number | null;
  tls: TlsPair;
  accounts: AccountRegistry;
  notifier: ChangeJournal;
  logger: Logger;
  /** Largest APPEND literal accepted (bytes). */
  maxMessageBytes: number;
  /** Which clients are offered COMPRESS=DEFLATE (compression-offer.ts). */
  compression: Config['imapCompression'];
  limits: Limits;
  logins: LoginGuard;
  onCommand?: CommandObserver;
  /** Several nodes: where a session of a mailbox another node serves is forwarded. */
  owners?: OwnerRoute;
}

export interface RunningImap {
  port: number;
  securePort: number | null;
  /** Open client connections on both ports. */
  sessions(): number;
  listening(): boolean;
  /** Applies to commands read from now on (a reload's new limit). */
  setMaxMessageBytes(bytes: number): void;
  /** Ends the sessions logged in as `account` (a reload removed it, another node serves it now), saying why. */
  disconnect(account: string, reason: string): void;
  /** Stops listening, lets commands in progress finish (up to limits.shutdownDrainSeconds), says BYE to everyone. */
  close(): Promise<void>;
}

type ImapCoreServer = InstanceType<typeof IMAPServer>;

function listen(server: ImapCoreServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const inner = server.server;
    inner.once('error', reject);
    server.listen(port, host, () => {
      inner.off('error', reject);
      resolve((inner.address() as AddressInfo).port);
    });
  });
}

/** Caps connections (gate) and disconnects clients that do not log in in time. */
function guardConnections(
  server: ImapCoreServer,
  gate: ConnectionGate,
  limits: Limits,
): Pick<ConnectionHost, 'connect' | 'closed'> {
  const deadlines = new LoginDeadlines(limits.loginTimeoutSeconds * 1000);
  return {
    connect: (connection) => {
      if (!gate.admit(connection.id, connection.remoteAddress)) throw new Error(tooManyConnections);
      deadlines.start(connection.id, () => {
        if (connection.user) return;
        for (const c of clientConnections(server))
          if (c.session === connection) c.bye('Login timeout, closing connection');
      });
    },
    closed: (connection) => {
      deadlines.stop(connection.id);
      gate.release(connection.id);
    },
  };
}

function create(
  opts: ImapServerOptions,
  secure: boolean,
  gate: ConnectionGate,
  recent: RecentMessages,
): ImapCoreServer {
  const { limits } = opts;
  const handshakes = handshakeLogger(opts.logger);
  const server = new IMAPServer({
    secure,
    // STARTTLS is offered; LOGIN without it is accepted only from loopback (checked in onAuth)
    ignoreSTARTTLS: true,
    key: opts.tls.key,
    cert: opts.tls.cert,
    ...tlsPolicy,
    id: { name: 'mailbridge', vendor: 'mailbridge', 'support-url': 'https://localhost/' },
    maxMessage: opts.maxMessageBytes,
    // RFC 4978; limits apply to the inflated bytes (the line length, literals), and IDLE's updates are flushed each
    enableCompression: (connection: { remoteAddress?: string }) =>
      offersCompression(opts.compression, connection.remoteAddress),
    maxLineLength: limits.maxLineBytes,
    maxLineLengthUnauthenticated: limits.maxLineBytesBeforeLogin,
    socketTimeout: limits.socketTimeoutSeconds * 1000,
    idleTimeout: limits.idleTimeoutSeconds * 1000,
    // after this, close() says BYE to the connections still busy
    closeTimeout: Math.max(limits.shutdownDrainSeconds * 1000, 1),
    // imap-core adds its "component" to every line itself: a child logger's would repeat the key
    logger: imapCoreLogger(opts.logger, handshakes),
    component: 'imap',
    skipFetchLog: true,
    // answers go out as several writes (untagged lines, then the tagged one): without this,
    // Nagle's algorithm holds the last write until the client's delayed ACK, about 40 ms a command
    noDelay: true,
  });
  server.notifier = opts.notifier;
  const login = authHook({
    accounts: opts.accounts,
    logins: opts.logins,
    logger: opts.logger,
    gate,
    owners: opts.owners ?? null,
  });
  bindEngine(
    server,
    mailboxBackend(opts.accounts, opts.logger, recent, opts.onCommand),
    { ...guardConnections(server, gate, limits), login },
    opts.logger,
    opts.notifier,
  );
  server.on('error', (err: NodeJS.ErrnoException) => {
    // a port that cannot be bound rejects listen(): the start reports it, in one line
    if (err.syscall === 'listen' || handshakes.report(err)) return;
    opts.logger.warn({ err: err.message }, 'imap connection error');
  });
  return server;
}

function closeServer(server: ImapCoreServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  return dismissWhenIdle(
    {
      connections: () => clientConnections(server),
      busy: (c) => c.busy(),
      dismiss: (c) => c.bye('Server shutting down'),
    },
    closed,
  );
}

/** imap-core's unexpected exceptions go to the log, at debug: they are answered to the client already. */
function routeProtocolErrors(logger: Logger): void {
  // only the message: the error's details can hold the raw command line, passwords included
  setReporter((err) => logger.debug({ imapError: err?.message }, 'imap protocol error'));
}

export async function startImapServer(opts: ImapServerOptions): Promise<RunningImap> {
  routeProtocolErrors(opts.logger);
  const gate = new ConnectionGate(opts.limits);
  // both listeners serve the same sessions' folders: one \Recent bookkeeping
  const recent = new RecentMessages();
  const plain = create(opts, false, gate, recent);
  const port = await listen(plain, opts.port, opts.host);
  let secure: ImapCoreServer | null = null;
  let securePort: number | null = null;
  if (opts.securePort !== null) {
    secure = create(opts, true, gate, recent);
    securePort = await listen(secure, opts.securePort, opts.host);
  }
  const servers = secure ? [plain, secure] : [plain];
  const connections = () => servers.flatMap(clientConnections);
  return {
    port,
    securePort,
    sessions: () => connections().length,
    listening: () => servers.every((s) => s.server.listening),
    setMaxMessageBytes: (bytes) => {
      for (const s of servers) s.options.maxMessage = bytes;
    },
    disconnect: (account, reason) => {
      for (const c of connections()) if (c.session.user?.id === accountId(account)) c.bye(reason);
    },
    close: async () => {
      await Promise.all([closeServer(plain), secure ? closeServer(secure) : Promise.resolve()]);
    },
  };
}
