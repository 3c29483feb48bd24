import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { generate } from 'selfsigned';
import { parseConfig } from '../src/config';
import { Quarantine } from '../src/domain/quarantine';
import { createLogger } from '../src/log';
import { buildSubmission } from '../src/smtp/payload';
import { createSmtpServer } from '../src/smtp/server';
import { openDatabase } from '../src/store/db';
import { QuarantineStore } from '../src/store/quarantine';
import { SecretStore } from '../src/store/secrets';
import { createVendorClient } from '../src/upstream/vendor-client';
import { vendorConnectors } from '../src/upstream/vendor-connector';
import { vendorQuarantine } from '../src/upstream/vendor-submission';
import { spawnSandbox } from './sandbox-process';
import { vendorSettings } from '../src/sandbox/vendor-settings';

/**
 * SMTP benchmark (issue 5): what the bridge adds to a 100 KB submission beyond the vendor's own
 * latency. Each round sends the message once through the bridge (nodemailer, one pooled
 * STARTTLS connection, so the TLS handshake is not counted) and once as the equivalent
 * /v3.0/send payload straight to the vendor; the overhead of a round is the difference. The
 * sandbox runs in its own process with a fixed latency.
 */

const alice = 'alice@sandbox.test';
const bob = 'bob@sandbox.test';
const rounds = Number(process.env.SMTP_BENCH_ROUNDS ?? 300);
const latencyMs = 50;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const ms = (v: number) => Math.round(v * 100) / 100;

function summary(values: number[]): { median: number; p99: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: ms(quantile(sorted, 0.5)),
    p99: ms(quantile(sorted, 0.99)),
    min: ms(sorted[0]),
    max: ms(sorted[sorted.length - 1]),
  };
}

/** A ~100 KB message: HTML body, text part and a binary attachment. */
function message(i: number): SendMailOptions {
  const paragraph = `<p>${'Quarterly figures, regional breakdown and notes. '.repeat(20)}</p>`;
  return {
    from: { name: 'Alice', address: alice },
    to: bob,
    subject: `bench ${i}`,
    html: paragraph.repeat(20),
    text: 'Quarterly figures attached.',
    messageId: `<bench-${i}@bench.test>`,
    attachments: [{ filename: 'figures.bin', content: crypto.randomBytes(57_600) }],
  };
}

export async function runSmtpBench(): Promise<Record<string, unknown>> {
  const sandbox = await spawnSandbox({ messages: 0, latencyMs });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-smtp-'));
  const logger = createLogger('warn');
  const config = parseConfig({
    vendor: vendorSettings(sandbox),
    accounts: [{ mailbox: alice }],
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    logLevel: 'warn',
  });
  const tokens = await sandbox.control<{ access_token: string; refresh_token: string }>('POST', '/tokens', {
    mailbox: alice,
  });
  const secrets = SecretStore.open(stateDir);
  secrets.putTokens(alice, { accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
  const password = secrets.setBridgePassword(alice);
  const db = openDatabase(stateDir);
  const bridgeVendor = createVendorClient(config, secrets, logger);
  const directVendor = createVendorClient(config, secrets, logger);
  const directConnector = vendorConnectors(directVendor, config, logger)(alice);
  const pems = generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
  const smtp = createSmtpServer({
    config,
    connector: vendorConnectors(bridgeVendor, config, logger),
    secrets,
    quarantine: new Quarantine({ log: new QuarantineStore(db), vendor: vendorQuarantine(bridgeVendor) }),
    committed: () => Promise.resolve(),
    logger,
    tls: { key: pems.private, cert: pems.cert },
  });
  const { port } = await smtp.listen();
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    pool: true,
    maxConnections: 1,
    maxMessages: Infinity,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: alice, pass: password },
  });

  try {
    const through: number[] = [];
    const direct: number[] = [];
    let rawBytes = 0;
    for (let i = -10; i < rounds; i++) {
      // the same bytes the client submits, turned into the copy the bridge would send
      const raw = await new MailComposer(message(i)).compile().build();
      rawBytes = raw.length;
      const [copy] = (await buildSubmission(raw, alice, [bob])).copies;
      let start = performance.now();
      await directConnector.submit(copy);
      const d = performance.now() - start;
      start = performance.now();
      await transport.sendMail({ envelope: { from: alice, to: [bob] }, raw });
      const t = performance.now() - start;
      if (i < 0) continue; // warm-up: JIT, keep-alive connections
      direct.push(d);
      through.push(t);
    }
    const overhead = through.map((t, i) => t - direct[i]);
    return {
      rounds,
      messageBytes: rawBytes,
      vendorLatencyMs: latencyMs,
      directVendorSendMs: summary(direct),
      throughBridgeMs: summary(through),
      bridgeOverheadMs: summary(overhead),
    };
  } finally {
    transport.close();
    await smtp.close();
    await Promise.all([bridgeVendor.close(), directVendor.close()]);
    db.close();
    await sandbox.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}
