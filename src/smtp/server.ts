import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions } from 'smtp-server';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { QuarantineStore } from '../store/quarantine';
import type { SecretStore } from '../store/secrets';
import type { TlsPair } from '../tls';
import type { VendorApi } from '../upstream/api';
import { isLoopback } from '../util/net';
import { deliver, failedOutcome, type SubmissionOutcome, type Submitted } from './deliver';
import { answerFor, smtpError } from './error-map';
import { buildSubmission } from './payload';

/**
 * The local submission server: STARTTLS on listen.smtpPort, implicit TLS on listen.smtpsPort
 * when set. Clients log in with the mailbox address and its bridge password; every accepted
 * message becomes /v3.0/send calls (./deliver.ts).
 */

export type { SubmissionOutcome, Submitted } from './deliver';

export interface SmtpServerOptions {
  config: Config;
  vendor: VendorApi;
  secrets: Pick<SecretStore, 'verifyBridgePassword'>;
  quarantine: QuarantineStore;
  logger: Logger;
  tls: TlsPair;
  /** Each accepted submission, so IMAP can recognise the client's APPEND of its Sent copy. */
  onSubmitted?(submitted: Submitted): void;
  /** How each submission ended (metrics). */
  onOutcome?(outcome: SubmissionOutcome): void;
}

export interface SmtpServer {
  listen(): Promise<{ port: number; securePort?: number }>;
  /** Open client connections on both ports. */
  sessions(): number;
  listening(): boolean;
  /** Applies to messages submitted from now on (a reload's new limit). */
  setMaxMessageBytes(bytes: number): void;
  close(): Promise<void>;
}

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

function serverOptions(opts: SmtpServerOptions, limits: LiveLimits, secure: boolean): SMTPServerOptions {
  const { config, logger } = opts;
  const accountFor = (username: string) =>
    config.accounts.find((a) => a.mailbox.toLowerCase() === username.toLowerCase())?.mailbox ?? username.toLowerCase();
  return {
    secure,
    key: opts.tls.key,
    cert: opts.tls.cert,
    name: 'mailbridge',
    banner: 'mailbridge submission server',
    size: limits.maxMessageBytes,
    maxRecipients,
    authMethods: ['PLAIN', 'LOGIN'],
    // plaintext AUTH is allowed per connection (loopback only) by onConnect below
    allowInsecureAuth: true,
    hideDSN: true, // the vendor sends no delivery status notifications
    logger: false,
    onConnect(session, callback) {
      // not even advertised to remote plaintext peers, so no client sends a password in clear;
      // STARTTLS starts a fresh session without this restriction
      if (!session.secure && !isLoopback(session.remoteAddress)) session.disabledCommands = ['AUTH'];
      callback();
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
      const account = accountFor(String(auth.username ?? '').trim());
      if (!opts.secrets.verifyBridgePassword(account, auth.password ?? '')) {
        logger.warn({ username: account, remote: session.remoteAddress }, 'smtp login refused');
        return callback(
          smtpError({
            code: 535,
            enhanced: '5.7.8',
            text: 'Authentication failed: log in with the mailbox address and its bridge password ("mailbridge account password")',
          }),
        );
      }
      callback(null, { user: account });
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
      if (address.address.toLowerCase() !== user.toLowerCase()) {
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
      const mailbox = String(session.user);
      readMessage(stream)
        .then(async (raw) => {
          if (!raw)
            throw smtpError({
              code: 552,
              enhanced: '5.3.4',
              text: `Message exceeds the ${limits.maxMessageBytes}-byte size limit`,
            });
          const sub = await buildSubmission(
            raw,
            mailbox,
            session.envelope.rcptTo.map((r) => r.address),
            config.assumptions,
          );
          return deliver({ ...opts, configFile: config.configFile }, mailbox, sub);
        })
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

function listenOn(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

export function createSmtpServer(opts: SmtpServerOptions): SmtpServer {
  const { listen } = opts.config;
  const limits: LiveLimits = { maxMessageBytes: opts.config.maxMessageBytes };
  const servers = [
    new SMTPServer(serverOptions(opts, limits, false)),
    ...(listen.smtpsPort === null ? [] : [new SMTPServer(serverOptions(opts, limits, true))]),
  ];
  /** smtp-server keeps these, unlisted in its typings. */
  const internals = (s: SMTPServer) =>
    s as unknown as { connections: Set<unknown>; options: SMTPServerOptions; server: { listening: boolean } };
  // a client that drops mid-session is not the bridge's failure
  for (const s of servers) s.on('error', (err) => opts.logger.debug({ err: err.message }, 'smtp connection error'));
  return {
    async listen() {
      const port = await listenOn(servers[0], listen.smtpPort, listen.host);
      if (servers.length === 1) return { port };
      return { port, securePort: await listenOn(servers[1], listen.smtpsPort ?? 0, listen.host) };
    },
    sessions: () => servers.reduce((n, s) => n + internals(s).connections.size, 0),
    listening: () => servers.every((s) => internals(s).server.listening),
    setMaxMessageBytes(bytes) {
      limits.maxMessageBytes = bytes;
      for (const s of servers) internals(s).options.size = bytes;
    },
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
