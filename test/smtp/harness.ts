import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { parseConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/log';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox';
import { Quarantine } from '../../src/domain/quarantine';
import { createSmtpServer, type SmtpServer, type Submitted } from '../../src/smtp/server';
import { openDatabase, type Database } from '../../src/store/db';
import { QuarantineStore } from '../../src/store/quarantine';
import { SecretStore } from '../../src/store/secrets';
import { createVendorClient, type VendorClient } from '../../src/upstream/vendor-client';
import { vendorConnectors } from '../../src/upstream/vendor-connector';
import { vendorQuarantine } from '../../src/upstream/vendor-submission';
import type { VendorMessage } from '../../src/upstream/types';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import type { ManualClock } from '../support/manual-clock';

/** Sandbox vendor + the SMTP submission server alone (no IMAP), on ephemeral loopback ports. */

export const alice = 'alice@sandbox.test';
export const bob = 'bob@sandbox.test';

/** Every request that reached the vendor's mail host, as seen on the wire. */
export interface WireLog {
  starts: number[];
  maxInFlight: number;
}

export interface SmtpHarness {
  sandbox: Sandbox;
  config: Config;
  vendor: VendorClient;
  secrets: SecretStore;
  /** The held copies, released through the vendor client. */
  quarantine: Quarantine;
  password: string;
  port: number;
  securePort: number;
  submitted: Submitted[];
  wire: WireLog;
  /** nodemailer over STARTTLS (or implicit TLS with secure: true), logged in as alice. */
  transport(opts?: TransportOptions): Transporter<SMTPTransport.SentMessageInfo>;
  /** POST {control}/account-state. */
  forceAccountError(code: string | null, times?: number): Promise<void>;
  /** Vendor messages of a sandbox folder with body, attachments and full headers. */
  messages(mailbox: string, folder?: string): Promise<VendorMessage[]>;
  /** Attachment bytes through the read API, as a recipient's mail client would get them. */
  attachment(mailbox: string, messageUid: string, attachmentId: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** Single-connection or pooled nodemailer options; the harness fills in host, port, TLS and login. */
export type TransportOptions = Partial<SMTPTransport.Options> | (Partial<SMTPPool.Options> & { pool: true });

export interface SmtpHarnessOptions {
  sandbox?: SandboxOptions;
  config?: Record<string, unknown>;
  /** Listen on every interface (for the remote-peer policy tests). */
  host?: string;
  /**
   * The vendor's rate windows and latency, the vendor client's gates and the wire log's times on
   * this clock, set running: it moves on to whatever they wait for, no vendor second waited out.
   */
  vendorClock?: ManualClock;
}

let tlsPair: { key: string; cert: string } | null = null;
export function selfSigned(): Promise<{ key: string; cert: string }> {
  if (!tlsPair) {
    const pems = generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
    tlsPair = { key: pems.private, cert: pems.cert };
  }
  return Promise.resolve(tlsPair);
}

/** A pass-through in front of the mail host that records request starts and concurrency. */
async function wireRecorder(
  target: string,
  now: () => number,
): Promise<{ url: string; log: WireLog; close(): Promise<void> }> {
  const log: WireLog = { starts: [], maxInFlight: 0 };
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    log.starts.push(now());
    log.maxInFlight = Math.max(log.maxInFlight, ++inFlight);
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      up.on('end', () => inFlight--);
    });
    upstream.on('error', () => {
      inFlight--;
      res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function startSmtpHarness(opts: SmtpHarnessOptions = {}): Promise<SmtpHarness> {
  const clock = opts.vendorClock;
  const sandbox = await startSandbox({
    messages: 0,
    ...opts.sandbox,
    ...(clock ? { trafficClock: clock.now, latencyClock: clock } : {}),
  });
  const wire = await wireRecorder(sandbox.urls.mail, clock?.now ?? (() => performance.now()));
  clock?.run();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-smtp-'));
  const config = parseConfig({
    // the mail host through the recorder, to see every send request
    vendor: { ...vendorSettings(sandbox), mailUrl: wire.url },
    accounts: [{ mailbox: alice }],
    listen: { host: opts.host ?? '127.0.0.1', imapPort: 0, smtpPort: 0, smtpsPort: 0 },
    stateDir,
    logLevel: 'silent',
    ...opts.config,
  });
  const logger = createLogger('silent');
  const secrets = SecretStore.open(stateDir);
  secrets.putTokens(alice, sandbox.issueTokens(alice));
  const password = secrets.setBridgePassword(alice);
  const db: Database = openDatabase(stateDir);
  const vendor = createVendorClient(config, secrets, logger, undefined, undefined, clock);
  const quarantine = new Quarantine({ log: new QuarantineStore(db), vendor: vendorQuarantine(vendor) });
  const submitted: Submitted[] = [];
  const smtp: SmtpServer = createSmtpServer({
    config,
    connector: vendorConnectors(vendor, config, logger),
    secrets,
    quarantine,
    committed: () => Promise.resolve(),
    logger,
    tls: await selfSigned(),
    onSubmitted: (s) => submitted.push(s),
  });
  const { port, securePort } = await smtp.listen();
  const transports: Transporter[] = [];
  const bobToken = sandbox.issueTokens(bob).accessToken;

  return {
    sandbox,
    config,
    vendor,
    secrets,
    quarantine,
    password,
    port,
    securePort: securePort ?? -1,
    submitted,
    wire: wire.log,
    transport(extra = {}) {
      const t: Transporter<SMTPTransport.SentMessageInfo> = nodemailer.createTransport({
        host: '127.0.0.1',
        port: extra.secure ? securePort : port,
        secure: false,
        requireTLS: !extra.secure,
        tls: { rejectUnauthorized: false },
        auth: { user: alice, pass: password },
        ...extra,
      });
      transports.push(t);
      return t;
    },
    async forceAccountError(code, times) {
      const res = await fetch(`${sandbox.urls.control}/account-state`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, ...(times ? { times } : {}) }),
      });
      if (!res.ok) throw new Error(`account-state ${code}: ${res.status} ${await res.text()}`);
    },
    async messages(mailbox, folder = 'INBOX') {
      const query = new URLSearchParams({ mailbox, folder, include: 'body,attachments,full_headers' });
      const res = await fetch(`${sandbox.urls.control}/messages?${query}`);
      return ((await res.json()) as { messages: VendorMessage[] }).messages;
    },
    async attachment(mailbox, messageUid, attachmentId) {
      if (mailbox !== bob) throw new Error('attachments are fetched for bob only');
      const res = await fetch(
        `${sandbox.urls.read}/v1/raw?${new URLSearchParams({ message_id: messageUid, attachment_id: attachmentId })}`,
        { headers: { authorization: bobToken } },
      );
      if (!res.ok) throw new Error(`raw: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
    async close() {
      for (const t of transports) t.close();
      await smtp.close();
      await vendor.close();
      db.close();
      await wire.close();
      await sandbox.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Runs a command-line client; resolves with its exit code and output (never rejects on exit code). */
export function run(
  cmd: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { timeout: 20_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Rejection of a nodemailer send: the SMTP code and the full reply line. */
export async function refusal(p: Promise<unknown>): Promise<{ responseCode: number; response: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { responseCode?: number; response?: string };
    return { responseCode: e.responseCode ?? -1, response: e.response ?? String(err) };
  }
  throw new Error('the send was accepted, a refusal was expected');
}

/** A line-level SMTP session, to see exactly what the server advertises and answers. */
export interface Dialog {
  greeting: string;
  /** Sends one line (or DATA content ending in CRLF.CRLF) and returns the complete reply. */
  send(line: string): Promise<string>;
  starttls(): Promise<string>;
  close(): void;
}

export async function dialog(host: string, port: number): Promise<Dialog> {
  let socket: net.Socket = net.connect(port, host);
  let buffer = '';
  let waiting: ((reply: string) => void) | null = null;
  const onData = (d: Buffer) => {
    buffer += d.toString('utf8');
    // a reply ends with a line whose code is followed by a space
    const end = buffer.match(/(?:^|\r\n)\d{3} [^\r\n]*\r\n$/);
    if (end && waiting) {
      const reply = buffer;
      buffer = '';
      const w = waiting;
      waiting = null;
      w(reply.trimEnd());
    }
  };
  const next = () =>
    new Promise<string>((resolve) => {
      waiting = resolve;
      onData(Buffer.alloc(0));
    });
  socket.on('data', onData);
  const greeting = await next();
  const session: Dialog = {
    greeting,
    send(line) {
      const reply = next();
      socket.write(line.endsWith('\r\n') ? line : `${line}\r\n`);
      return reply;
    },
    async starttls() {
      const reply = await session.send('STARTTLS');
      socket.off('data', onData);
      socket = tls.connect({ socket, rejectUnauthorized: false });
      await new Promise((resolve) => socket.once('secureConnect', resolve));
      socket.on('data', onData);
      return reply;
    },
    close() {
      socket.destroy();
    },
  };
  return session;
}

export const plainAuth = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');
