import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from './config';
import { createLogger } from './log';
import { startBridge } from './bridge';
import { startSandbox } from './sandbox';

export interface DemoOptions {
  messages: number;
  imapPort: number;
  smtpPort: number;
}

const demoMailbox = 'alice@sandbox.test';

/**
 * `mailbridge demo`: the sandbox vendor with a seeded mailbox, the bridge in front of it, and
 * the settings to type into a mail client. State lives in a fresh temp dir per run because
 * the sandbox issues new tokens every time.
 */
export async function runDemo(opts: DemoOptions, print: (line: string) => void): Promise<{ close(): Promise<void> }> {
  const sandbox = await startSandbox({ messages: opts.messages });
  const tokens = sandbox.issueTokens(demoMailbox);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-demo-'));
  const config = parseConfig({
    vendor: {
      readUrl: sandbox.urls.read,
      mailUrl: sandbox.urls.mail,
      graphUrl: sandbox.urls.graph,
      apiKey: sandbox.apiKey,
    },
    accounts: [{ mailbox: demoMailbox, ...tokens }],
    listen: { host: '127.0.0.1', imapPort: opts.imapPort, smtpPort: opts.smtpPort },
    stateDir,
    pollIntervalSeconds: 5,
    logLevel: 'warn',
  });
  const bridge = await startBridge(config, createLogger(config.logLevel));
  const password = bridge.secrets.setBridgePassword(demoMailbox);
  const security = 'connection security STARTTLS (or None)  authentication Normal password';
  [
    'mailbridge demo is running against the built-in sandbox vendor.',
    '',
    'Thunderbird: Account Settings > Add Mail Account > Configure manually',
    `  Incoming  IMAP  server 127.0.0.1  port ${bridge.ports.imap}  ${security}`,
    `  Outgoing  SMTP  server 127.0.0.1  port ${bridge.ports.smtp}  ${security}`,
    `  Username  ${demoMailbox}`,
    `  Password  ${password}`,
    '  (the certificate is self-signed for localhost: accept the exception once)',
    '',
    `Sandbox: ${opts.messages} seeded messages; control API at ${sandbox.urls.control} (see docs/sandbox.md).`,
    `State: ${stateDir}. Press Ctrl+C to stop.`,
  ].forEach(print);
  return {
    close: async () => {
      await bridge.close();
      await sandbox.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
