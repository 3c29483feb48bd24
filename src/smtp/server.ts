import type { AddressInfo } from 'node:net';
import { type AccountId, accountId } from '../model/account-id';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { LoginGuard } from '../auth/login-guard';
import type { Config } from '../config';
import { ConnectionGate, tooManyConnections } from '../listen/connection-gate';
import { dismissWhenIdle } from '../listen/drain';
import { LoginDeadlines } from '../listen/login-deadline';
import type { Logger } from '../log';
import type { TokenVault } from '../store';
import { type TlsPair, tlsPolicy } from '../tls';
import type { Connector } from '../domain/connector';
import type { Quarantine } from '../domain/quarantine';
import { isLoopback } from '../util/net';
import { deliver, failedOutcome, type SubmissionOutcome, type Submitted } from './deliver';
import { answerFor, smtpError } from './error-map';
import { relayToOwner } from './owner-relay';
import { buildSubmission } from './payload';

/**
 * The local submission server: STARTTLS on listen.smtpPort, implicit TLS on listen.smtpsPort
 * when set. Clients log in with the mailbox address and its bridge password; every accepted
 * message is sent through the mailbox's connector (./deliver.ts).
 */

export type { SubmissionOutcome, Submitted } from './deliver';

export interface SmtpServerOptions {
  config: Config;
  /** The mailbox's connector to the vendor, what submissions are sent through. */
  connector(mailbox: AccountId): Connector;
  secrets: Pick<TokenVault, 'verifyBridgePassword'>;
  /** Shared with IMAP so a peer's failures count across both; by default one of its own. */
  logins?: LoginGuard;
  /** Where the copies the vendor's spam filter held are recorded. */
  quarantine: Pick<Quarantine, 'hold'>;
  /** Resolves once a submission's state writes (quarantine records, its Message-ID) are durable: 250 waits for it. */
  committed(mailbox: string): Promise<void>;
  /** Rejects while the mailbox's state cannot be stored (store-errors.ts): then nothing is sent. */
  writable?(mailbox: string): Promise<void>;
  logger: Logger;
  tls: TlsPair;
  /** Each accepted submission, so IMAP can recognise the client's APPEND of its Sent copy. */
  onSubmitted?(submitted: Submitted): void;
  /** How each submission ended (metrics). */
  onOutcome?(outcome: SubmissionOutcome): void;
  /**
   * Several nodes: whether the mailbox is served here ('here'), by another node (the host:port
   * of its SMTP listener, the message is relayed there), or by none at the moment (null).
   */
  owners?: { route(mailbox: string): Promise<'here' | string | null>; certificate: string };
}

export interface SmtpServer {
  listen(): Promise<{ port: number; securePort?: number }>;
  /** Open client connections on both ports. */
  sessions(): number;
  listening(): boolean;
  /** Applies to messages submitted from now on (a reload's new limit). */
  setMaxMessageBytes(bytes: number): void;
  /** Stops listening, lets submissions in progress finish (up to limits.shutdownDrainSeconds), answers 421 to everyone. */
  close(): Promise<void>;
}

/** What the listeners share: the connection caps, login deadlines and the sessions inside DATA. */
interface Guards {
  gate: ConnectionGate;
  deadlines: LoginDeadlines;
  /** Ids of sessions whose message is being received or delivered. */
  transfers: Set<string>;
  logins: LoginGuard;
}

/** The parts of an smtp-server connection the listener uses. */
interface SmtpConnection {
  id: string;
  session: SMTPServerSession;
  send(code: number, message: string): void;
}

const connectionsOf = (server: SMTPServer) => (server as unknown as { connections: Set<SmtpConnection> }).connections;

/** A reply that smtp-server sends before closing the connection. */
const closing = (text: string) => Object.assign(new Error(text), { responseCode: 421 });

/** Settings a reload may change while sessions are open. */
interface LiveLimits {
  maxMessageBytes: number;
}

/** Each recipient is one vendor call; beyond this a client must split the message. */
export const maxRecipients = 100;

/** Reads the message; past the size limit it only drains, so a huge DATA cannot fill memory. */
async function readMessage(stream: SMTPServerDataStream): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) if (!stream.sizeExceeded) chunks.push(chunk as Buffer);
  return stream.sizeExceeded ? null : Buffer.concat(chunks);
}

function serverOptions(
  opts: SmtpServerOptions,
  live: LiveLimits,
  secure: boolean,
  guards: Guards,
  connections: () => Iterable<SmtpConnection>,
): SMTPServerOptions {
  const { config } = opts;
  const { limits } = config;
  /** Passwords of sessions that may be relayed to another node, by session id, until the session ends. */
  const passwords = new Map<string, string>();
  const relayIfElsewhere = async (raw: Buffer, session: SMTPServerSession): Promise<string | null> => {
    const mailbox = String(session.user);
    const owner = opts.owners ? await opts.owners.route(mailbox) : 'here';
    if (owner === 'here' || !opts.owners) return null;
    if (owner === null)
      throw smtpError({ code: 451, enhanced: '4.3.2', text: 'No node serves this mailbox at the moment; try again' });
    const envelope = {
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : mailbox,
      to: session.envelope.rcptTo.map((r) => r.address),
    };
    const target = { address: owner, username: mailbox, password: passwords.get(session.id) ?? '' };
    return relayToOwner(target, envelope, raw, opts.owners.certificate);
  };
  return {
    secure,
    key: opts.tls.key,
    cert: opts.tls.cert,
    ...tlsPolicy,
    name: 'mailbridge',
    banner: 'mailbridge submission server',
    size: live.maxMessageBytes,
    maxRecipients,
    authMethods: ['PLAIN', 'LOGIN'],
    // plaintext AUTH is allowed per connection (loopback only) by onConnect below
    allowInsecureAuth: true,
    hideDSN: true, // the vendor sends no delivery status notifications
    logger: false,
    maxCommandLength: limits.maxLineBytesBeforeLogin,
    socketTimeout: limits.socketTimeoutSeconds * 1000,
    // after this, close() answers 421 to the connections still busy
    closeTimeout: Math.max(limits.shutdownDrainSeconds * 1000, 1),
    onConnect(session, callback) {
      if (!guards.gate.admit(session.id, session.remoteAddress)) return callback(closing(tooManyConnections));
      guards.deadlines.start(session.id, () => {
        for (const c of connections())
          if (c.id === session.id && !c.session.user) c.send(421, 'Login timeout, closing connection');
      });
      // not even advertised to remote plaintext peers, so no client sends a password in clear;
      // STARTTLS starts a fresh session without this restriction
      if (!session.secure && !isLoopback(session.remoteAddress)) session.disabledCommands = ['AUTH'];
      callback();
    },
    onClose(session) {
      passwords.delete(session.id);
      guards.deadlines.stop(session.id);
      guards.gate.release(session.id);
    },
    onSecure(_socket, session, callback) {
      session.disabledCommands = undefined;
      callback();
    },
    onAuth(auth, session, callback) {
      if (!session.secure && !isLoopback(session.remoteAddress)) {
        return callback(
          smtpError({
            code: 538,
            enhanced: '5.7.11',
            text: 'Encryption required: use STARTTLS (or the implicit-TLS port) before AUTH',
          }),
        );
      }
      const account = accountId(String(auth.username ?? ''));
      const attempt = { protocol: 'smtp' as const, peer: session.remoteAddress, username: account };
      guards.logins
        .login(attempt, async () =>
          (await opts.secrets.verifyBridgePassword(account, auth.password ?? '')) ? account : null,
        )
        .then(
          (user) => {
            if (user && opts.owners) passwords.set(session.id, auth.password ?? '');
            if (user) return callback(null, { user });
            callback(
              smtpError({
                code: 535,
                enhanced: '5.7.8',
                text: 'Authentication failed: log in with the mailbox address and its bridge password ("mailbridge account password")',
              }),
            );
          },
          (err: Error) => callback(err),
        );
    },
    onRcptTo(address, session, callback) {
      // RFC 6531: a non-ASCII address only in a transaction the client opened with SMTPUTF8
      if (/[^\x00-\x7f]/.test(address.address) && !session.envelope.smtpUtf8)
        return callback(
          smtpError({
            code: 553,
            enhanced: '5.6.7',
            text: `${address.address} is not ASCII: send MAIL FROM with the SMTPUTF8 parameter (RFC 6531)`,
          }),
        );
      callback();
    },
    onMailFrom(address, session, callback) {
      const user = typeof session.user === 'string' ? session.user : '';
      if (!user)
        return callback(
          smtpError({
            code: 530,
            enhanced: '5.7.0',
            text: 'Authentication required: use STARTTLS, then AUTH with the bridge password',
          }),
        );
      if (accountId(address.address) !== user) {
        return callback(
          smtpError({
            code: 553,
            enhanced: '5.7.1',
            text: `Sender address must be ${user}, the mailbox you logged in as`,
          }),
        );
      }
      callback();
    },
    onData(stream, session, callback) {
      const mailbox = accountId(String(session.user));
      guards.transfers.add(session.id);
      readMessage(stream)
        .then(async (raw) => {
          if (!raw)
            throw smtpError({
              code: 552,
              enhanced: '5.3.4',
              text: `Message exceeds the ${live.maxMessageBytes}-byte size limit`,
            });
          const relayed = await relayIfElsewhere(raw, session);
          if (relayed !== null) return relayed;
          const sub = await buildSubmission(
            raw,
            mailbox,
            session.envelope.rcptTo.map((r) => r.address),
          );
          // nothing goes to the vendor that the bridge could not then record
          await opts.writable?.(mailbox);
          const { quarantine, logger, onSubmitted } = opts;
          const answer = await deliver(
            { connector: opts.connector(mailbox), quarantine, logger, onSubmitted, configFile: config.configFile },
            mailbox,
            sub,
            config.submission.recipients,
          );
          // sent is sent: a 4xx now would make the client send it again
          await opts
            .committed(mailbox)
            .catch((err: Error) =>
              opts.logger.warn(
                { mailbox, err: err.message },
                'submission sent; its record is stored once the database answers',
              ),
            );
          return answer;
        })
        .finally(() => guards.transfers.delete(session.id))
        .then(
          (message) => {
            opts.onOutcome?.('sent');
            callback(null, message);
          },
          (err: Error) => {
            const answer =
              'responseCode' in err ? (err as Error & { responseCode: number }) : smtpError(answerFor(err));
            opts.onOutcome?.(failedOutcome(answer));
            callback(answer);
          },
        );
    },
  };
}

function createListener(opts: SmtpServerOptions, live: LiveLimits, secure: boolean, guards: Guards): SMTPServer {
  const server: SMTPServer = new SMTPServer(serverOptions(opts, live, secure, guards, () => connectionsOf(server)));
  // a client that drops mid-session is not the bridge's failure
  server.on('error', (err) => opts.logger.debug({ err: err.message }, 'smtp connection error'));
  return server;
}

function listenOn(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: SMTPServer, transfers: Set<string>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  return dismissWhenIdle(
    {
      connections: () => connectionsOf(server),
      busy: (c) => transfers.has(c.id),
      // smtp-server closes the connection after a 421
      dismiss: (c) => c.send(421, 'Server shutting down'),
    },
    closed,
  );
}

export function createSmtpServer(opts: SmtpServerOptions): SmtpServer {
  const { listen, limits } = opts.config;
  const live: LiveLimits = { maxMessageBytes: opts.config.maxMessageBytes };
  const guards: Guards = {
    gate: new ConnectionGate(limits),
    deadlines: new LoginDeadlines(limits.loginTimeoutSeconds * 1000),
    transfers: new Set(),
    logins: opts.logins ?? new LoginGuard({ freeFailures: limits.freeLoginFailures }, opts.logger),
  };
  const servers = [
    createListener(opts, live, false, guards),
    ...(listen.smtpsPort === null ? [] : [createListener(opts, live, true, guards)]),
  ];
  /** smtp-server keeps these, unlisted in its typings. */
  const internals = (s: SMTPServer) =>
    s as unknown as { connections: Set<unknown>; options: SMTPServerOptions; server: { listening: boolean } };
  return {
    async listen() {
      const port = await listenOn(servers[0], listen.smtpPort, listen.host);
      if (servers.length === 1) return { port };
      return { port, securePort: await listenOn(servers[1], listen.smtpsPort ?? 0, listen.host) };
    },
    sessions: () => servers.reduce((n, s) => n + internals(s).connections.size, 0),
    listening: () => servers.every((s) => internals(s).server.listening),
    setMaxMessageBytes(bytes) {
      live.maxMessageBytes = bytes;
      for (const s of servers) internals(s).options.size = bytes;
    },
    async close() {
      await Promise.all(servers.map((s) => closeServer(s, guards.transfers)));
    },
  };
}
