import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { parseConfig, type Config } from '../../src/config';
import { createLogger, type Logger } from '../../src/log';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox';
import { SecretStore, importInitialTokens } from '../../src/store/secrets';
import type { LimiterOptions } from '../../src/upstream/rate-limiter';
import { VendorClient } from '../../src/upstream/vendor-client';
import type { Clock } from '../../src/util/clock';
import { ManualClock } from '../support/manual-clock';

export const mailbox = 'alice@sandbox.test';
export const hour = 3600_000;

export interface UpstreamHarness {
  sandbox: Sandbox;
  /** The sandbox's rate windows and, unless a test passes another, every client's gate, retries and backoff. */
  clock: ManualClock;
  stateDir: string;
  config: Config;
  /** Everything the logger wrote so far. */
  logText: string;
  logger: Logger;
  clients: VendorClient[];
  fresh(): Promise<void>;
  client(
    limits?: Partial<LimiterOptions>,
    config?: Config,
    clock?: Clock,
  ): { client: VendorClient; secrets: SecretStore };
}

/**
 * Per test file: one sandbox, a logger whose output is captured (to prove no token leaks),
 * and per test a fresh token pair and state dir. Clients made here are closed after each test.
 * The sandbox's rate windows and the clients share one manual clock (`clock`, or the one passed):
 * it moves on to whatever a client waits for (a place in its gate, Retry-After, a backoff) while
 * the test runs, and a test moves it itself to let a vendor second pass instead of waiting one.
 */
export function useUpstreamHarness(
  opts: SandboxOptions = { messages: 300 },
  clock = new ManualClock(),
): UpstreamHarness {
  const h: UpstreamHarness = {
    sandbox: undefined as unknown as Sandbox,
    clock,
    stateDir: '',
    config: undefined as unknown as Config,
    logText: '',
    logger: createLogger(
      'debug',
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          h.logText += chunk.toString();
          cb();
        },
      }) as unknown as Parameters<typeof createLogger>[1],
    ),
    clients: [],

    /** New tokens and state dir; the previous test's requests leave the vendor's 1 s window. */
    async fresh(): Promise<void> {
      clock.skip(1_000);
      h.stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-upstream-'));
      const tokens = h.sandbox.issueTokens(mailbox);
      const s = h.sandbox;
      h.config = parseConfig({
        vendor: {
          readUrl: s.urls.read,
          mailUrl: s.urls.mail,
          graphUrl: s.urls.graph,
          apiKey: s.apiKey,
          timeoutMs: 10_000,
        },
        accounts: [{ mailbox, ...tokens }],
        stateDir: h.stateDir,
      });
      s.resetStats();
      s.setFaults({});
      s.setLatency(0);
    },

    /** A store and client over the current state dir, as the daemon makes them at start. */
    client(limits, config = h.config, clientClock: Clock = clock) {
      const secrets = SecretStore.open(h.stateDir);
      importInitialTokens(config, secrets);
      const client = new VendorClient(
        config.vendor,
        config.assumptions,
        secrets,
        h.logger,
        limits,
        undefined,
        clientClock,
      );
      h.clients.push(client);
      return { client, secrets };
    },
  };

  beforeAll(async () => {
    h.sandbox = await startSandbox({ ...opts, trafficClock: clock.now });
    clock.run();
  });
  afterAll(async () => {
    clock.stop();
    await h.sandbox?.close();
  });
  afterEach(async () => {
    await Promise.all(h.clients.map((c) => c.close()));
    h.clients = [];
    if (h.stateDir) fs.rmSync(h.stateDir, { recursive: true, force: true });
  });
  return h;
}
