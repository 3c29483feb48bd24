import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll } from 'vitest';
import { parseConfig, type Config } from '../../src/config';
import { createLogger, type Logger } from '../../src/log';
import { type BridgeOptions, startBridge, type RunningBridge } from '../../src/bridge';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox';
import type { VendorMessage } from '../../src/upstream/types';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import type { ManualClock } from './manual-clock';

export const mailbox = 'alice@sandbox.test';

export interface Harness {
  sandbox: Sandbox;
  bridge: RunningBridge;
  config: Config;
  password: string;
  stateDir: string;
  client(): Promise<ImapFlow>;
  /**
   * Stops and starts the bridge on the same state dir, with `config` merged into its config. It
   * listens on fresh ephemeral ports: a parallel test file may take the old ones while it is down.
   */
  restart(config?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  /** A running sandbox to bridge to instead of a new one (a second bridge on the same vendor); left running by close(). */
  vendor?: Sandbox;
  config?: Record<string, unknown>;
  /** The bridge's logger; silent by default. */
  logger?: Logger;
  bridge?: BridgeOptions;
  /** The mailbox as the config spells it (the sandbox's own spelling by default). */
  spelling?: string;
  /**
   * The vendor's rate windows (of the sandbox started here) and the bridge's gate, Retry-After
   * pauses and backoff on this clock, set running: it moves on to whatever the bridge waits for,
   * so no vendor second is waited out in real time. A sandbox passed as `vendor` must count on it too.
   */
  vendorClock?: ManualClock;
}

/** Sandbox vendor + bridge on ephemeral loopback ports with a fresh state dir. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const clock = opts.vendorClock;
  const sandbox =
    opts.vendor ??
    (await startSandbox({ messages: 60, ...opts.sandbox, ...(clock ? { trafficClock: clock.now } : {}) }));
  const bridgeOptions: BridgeOptions = { ...opts.bridge, ...(clock ? { vendorClock: clock } : {}) };
  clock?.run();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-test-'));
  const tokens = sandbox.issueTokens(mailbox);
  const raw = {
    vendor: vendorSettings(sandbox),
    accounts: [{ mailbox: opts.spelling ?? mailbox, ...tokens }],
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    pollIntervalSeconds: 3600,
    logLevel: 'silent',
    ops: { port: 0 },
    ...opts.config,
  };
  const logger = opts.logger ?? createLogger('silent');
  let config = parseConfig(raw);
  let bridge = await startBridge(config, logger, bridgeOptions);
  const password = await bridge.secrets.setBridgePassword(opts.spelling ?? mailbox);

  const harness: Harness = {
    sandbox,
    get bridge() {
      return bridge;
    },
    get config() {
      return config;
    },
    password,
    stateDir,
    async client() {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port: bridge.ports.imap,
        secure: false,
        doSTARTTLS: false,
        auth: { user: mailbox, pass: password },
        logger: false,
      });
      await client.connect();
      return client;
    },
    async restart(changes = {}) {
      await bridge.close();
      config = parseConfig({ ...raw, ...changes });
      bridge = await startBridge(config, logger, bridgeOptions);
    },
    async close() {
      await bridge.close();
      if (!opts.vendor) await sandbox.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** JSON from the sandbox control API. */
export async function control<T = unknown>(
  sandbox: Sandbox,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${sandbox.urls.control}${route}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : undefined,
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`control ${route}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every message of one sandbox folder, straight from the vendor emulator's state. */
export async function vendorFolder(sandbox: Sandbox, folder: string): Promise<VendorMessage[]> {
  return (
    await control<{ messages: VendorMessage[] }>(
      sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=${encodeURIComponent(folder)}`,
    )
  ).messages;
}

export interface ImapSessionContext {
  h: Harness;
  client: ImapFlow;
}

/** A harness and one logged-in imapflow client for a test file (replaced on restart by the test). */
export function useImapSession(opts: HarnessOptions = {}): ImapSessionContext {
  const ctx = {} as ImapSessionContext;
  beforeAll(async () => {
    ctx.h = await startHarness(opts);
    ctx.client = await ctx.h.client();
  });
  afterAll(async () => {
    await ctx.client?.logout().catch(() => undefined);
    await ctx.h?.close();
  });
  return ctx;
}
