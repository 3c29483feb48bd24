import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { QuarantineStore } from '../store/quarantine';
import type { VendorApi } from '../upstream/api';
import { VendorError } from '../upstream/errors';
import type { TlsPair } from '../tls';
import { answerFor, smtpError, type SmtpAnswer } from './error-map';
import { buildSubmission, type Submission } from './payload';
import { isLoopback } from '../util/net';

export interface SmtpServerOptions {
  config: Config;
  vendor: VendorApi;
  secrets: { verifyBridgePassword(mailbox: string, password: string): boolean; get(mailbox: string): unknown };
  quarantine: QuarantineStore;
  logger: Logger;
  tls: TlsPair;
  /** Every accepted submission's Message-ID, so IMAP can recognise the client's Sent copy. */
  onSubmitted?(account: string, messageId: string): void;
}

export interface RunningSmtp {
  port: number;
  securePort: number | null;
  close(): Promise<void>;
}

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function spamAnswer(err: VendorError, opts: SmtpServerOptions, account: string, recipient: string, sub: Submission): SmtpAnswer {
  const quarantineId = typeof err.details.quarantine_id === 'string' ? err.details.quarantine_id : null;
  if (!quarantineId) {
    return { code: 550, enhanced: '5.7.1', text: "Rejected by the vendor's spam filter and not kept in quarantine, so there is nothing to release; change the content and send again" };
  }
  const heldAt = new Date();
  opts.quarantine.record({ quarantineId, account, recipient, subject: sub.subject, messageId: sub.messageId, heldAt });
  const lifetime = typeof err.details.expires_in === 'string' ? err.details.expires_in : '3 hours';
  const until = new Date(heldAt.getTime() + 3 * 3600 * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return {
    code: 550,
    enhanced: '5.7.1',
    text: `Held by the vendor's spam filter: quarantine_id ${quarantineId}, releasable for ${lifetime} (until ${until} UTC). To deliver it anyway run: mailbridge quarantine release ${quarantineId}`,
  };
}

/**
 * Sends to every recipient, one vendor call each. 250 only when every call returned an id.
 * When some recipients got the message and others did not, the answer is a permanent 5xx
 * naming both groups: a temporary code would make the client resend to everyone.
 */
async function deliver(opts: SmtpServerOptions, account: string, sub: Submission): Promise<string> {
  const sent: Array<{ to: string; id: string }> = [];
  for (const payload of sub.payloads) {
    try {
      sent.push({ to: payload.to, id: (await opts.vendor.send(payload)).id });
    } catch (err) {
      const answer = err instanceof VendorError && err.code === 'SPAM_DETECTED' ? spamAnswer(err, opts, account, payload.to, sub) : answerFor(err);
      opts.logger.warn({ account, recipient: payload.to, code: err instanceof VendorError ? err.code : (err as Error).name, smtp: answer.code }, 'send refused');
      if (!sent.length) throw smtpError(answer);
      const failed = sub.payloads.slice(sent.length).map((p) => p.to);
      throw smtpError({
        code: 550,
        enhanced: '5.5.0',
        text: `Partly delivered: sent to ${sent.map((s) => s.to).join(', ')}; NOT sent to ${failed.join(', ')} (${answer.text}). Do not resend to the first group.`,
      });
    }
  }
  opts.onSubmitted?.(account, sub.messageId);
  opts.logger.info({ account, recipients: sent.length }, 'submission sent');
  return `Sent to ${sent.length} recipient(s), vendor ids ${sent.map((s) => s.id).join(' ')}`;
}

function create(opts: SmtpServerOptions, secure: boolean): SMTPServer {
  const { config } = opts;
  return new SMTPServer({
    secure,
    key: opts.tls.key,
    cert: opts.tls.cert,
    name: 'mailbridge',
    banner: 'mailbridge submission',
    size: config.maxMessageBytes,
    authMethods: ['PLAIN', 'LOGIN'],
    // plaintext AUTH is refused in onAuth except on loopback
    allowInsecureAuth: true,
    disabledCommands: [],
    logger: false,
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback) {
      if (!session.secure && !isLoopback(session.remoteAddress)) {
        return callback(smtpError({ code: 538, enhanced: '5.7.11', text: 'Encryption required: use STARTTLS before AUTH' }));
      }
      const account = config.accounts.map((a) => a.mailbox).find((m) => m.toLowerCase() === String(auth.username ?? '').trim().toLowerCase()) ?? String(auth.username ?? '').trim();
      if (!opts.secrets.get(account) || !opts.secrets.verifyBridgePassword(account, auth.password ?? '')) {
        return callback(smtpError({ code: 535, enhanced: '5.7.8', text: 'Authentication failed: use the bridge password from "mailbridge account add"' }));
      }
      callback(null, { user: account });
    },
    onMailFrom(address, session, callback) {
      const user = String(session.user ?? '');
      if (!user) return callback(smtpError({ code: 530, enhanced: '5.7.0', text: 'Authentication required' }));
      if (address.address.toLowerCase() !== user.toLowerCase()) {
        return callback(smtpError({ code: 553, enhanced: '5.7.1', text: `Sender must be ${user}, the authenticated account` }));
      }
      callback();
    },
    onData(stream, session, callback) {
      readAll(stream)
        .then(async (raw) => {
          if (stream.sizeExceeded) throw smtpError({ code: 552, enhanced: '5.3.4', text: `Message exceeds the ${config.maxMessageBytes}-byte limit` });
          const account = String(session.user);
          const sub = await buildSubmission(raw, account, session.envelope.rcptTo.map((r) => r.address), config.assumptions);
          return deliver(opts, account, sub);
        })
        .then(
          (message) => callback(null, message),
          (err: Error) => callback('responseCode' in err ? err : smtpError(answerFor(err))),
        );
    },
  });
}

function listen(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

export async function startSmtpServer(opts: SmtpServerOptions): Promise<RunningSmtp> {
  const plain = create(opts, false);
  plain.on('error', (err) => opts.logger.warn({ err: err.message }, 'smtp connection error'));
  const port = await listen(plain, opts.config.listen.smtpPort, opts.config.listen.host);
  let secure: SMTPServer | null = null;
  let securePort: number | null = null;
  if (opts.config.listen.smtpsPort !== null) {
    secure = create(opts, true);
    secure.on('error', (err) => opts.logger.warn({ err: err.message }, 'smtps connection error'));
    securePort = await listen(secure, opts.config.listen.smtpsPort, opts.config.listen.host);
  }
  const close = (s: SMTPServer) => new Promise<void>((resolve) => s.close(() => resolve()));
  return { port, securePort, close: async () => void (await Promise.all([close(plain), secure ? close(secure) : Promise.resolve()])) };
}
