import type { AddressInfo } from 'node:net';
import { IMAPServer } from '@zone-eu/wildduck/imap-core';
import type { Logger } from '../log';
import type { TlsPair } from '../tls';
import type { AccountRegistry } from '../domain/account-registry';
import { installFailureResponses } from './error-responses';
import type { ImapNotifier } from './notifier';
import { type CommandObserver, installHooks } from './hooks';

export interface ImapServerOptions {
  host: string;
  port: number;
  /** Implicit-TLS port, or null for none. */
  securePort: number | null;
  tls: TlsPair;
  accounts: AccountRegistry;
  notifier: ImapNotifier;
  logger: Logger;
  /** Largest APPEND literal accepted (bytes). */
  maxMessageBytes: number;
  onCommand?: CommandObserver;
}

export interface RunningImap {
  port: number;
  securePort: number | null;
  /** Open client connections on both ports. */
  sessions(): number;
  listening(): boolean;
  /** Applies to commands read from now on (a reload's new limit). */
  setMaxMessageBytes(bytes: number): void;
  /** Ends the sessions logged in as `account` (a reload removed it). */
  disconnect(account: string): void;
  close(): Promise<void>;
}

/** The parts of an imap-core connection a reload needs. */
interface CoreConnection {
  session?: { user?: { id?: string } };
  send(line: string): void;
  close(): void;
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

function create(opts: ImapServerOptions, secure: boolean): ImapCoreServer {
  const server = new IMAPServer({
    secure,
    // STARTTLS is offered; LOGIN without it is accepted only from loopback (checked in onAuth)
    ignoreSTARTTLS: true,
    key: opts.tls.key,
    cert: opts.tls.cert,
    id: { name: 'mailbridge', vendor: 'mailbridge', 'support-url': 'https://localhost/' },
    maxMessage: opts.maxMessageBytes,
    logger: opts.logger.child({ component: 'imap' }),
    skipFetchLog: true,
    // clients in IDLE for 30 min are expected to re-issue IDLE (RFC 2177)
    idleTimeout: 31 * 60 * 1000,
  });
  server.notifier = opts.notifier;
  installHooks(server, opts.accounts, opts.logger, opts.onCommand);
  server.on('error', (err: Error) => opts.logger.warn({ err: err.message }, 'imap connection error'));
  return server;
}

function closeServer(server: ImapCoreServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** imap-core reports protocol errors through WildDuck's GELF hook, which prints to stderr by default. */
function routeProtocolErrors(logger: Logger): void {
  const errors = require('@zone-eu/wildduck/lib/errors.js') as {
    gelf: { handler: { emit(channel: string, message: { short_message?: string }): void } };
  };
  // only the summary: the full record can hold the raw command line, passwords included
  errors.gelf.handler = {
    emit: (_channel, message) => logger.debug({ imapError: message.short_message }, 'imap protocol error'),
  };
}

export async function startImapServer(opts: ImapServerOptions): Promise<RunningImap> {
  installFailureResponses();
  routeProtocolErrors(opts.logger);
  const plain = create(opts, false);
  const port = await listen(plain, opts.port, opts.host);
  let secure: ImapCoreServer | null = null;
  let securePort: number | null = null;
  if (opts.securePort !== null) {
    secure = create(opts, true);
    securePort = await listen(secure, opts.securePort, opts.host);
  }
  const servers = secure ? [plain, secure] : [plain];
  const connections = () => servers.flatMap((s) => [...(s.connections as Set<CoreConnection>)]);
  return {
    port,
    securePort,
    sessions: () => connections().length,
    listening: () => servers.every((s) => s.server.listening),
    setMaxMessageBytes: (bytes) => {
      for (const s of servers) s.options.maxMessage = bytes;
    },
    disconnect: (account) => {
      for (const c of connections()) {
        if (c.session?.user?.id?.toLowerCase() !== account.toLowerCase()) continue;
        c.send('* BYE this account is no longer bridged');
        c.close();
      }
    },
    close: async () => {
      await Promise.all([closeServer(plain), secure ? closeServer(secure) : Promise.resolve()]);
    },
  };
}
