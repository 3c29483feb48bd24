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
import type { ManualClock } from '../support/manual-clock';

export const mailbox = 'alice@sandbox.test';
export const hour = 3600_000;

export interface UpstreamHarness {
  sandbox: Sandbox;
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
 * With `trafficClock` the sandbox's rate windows follow that manual clock instead of real time.
 */
export function useUpstreamHarness(
  opts: SandboxOptions = { messages: 300 },
  trafficClock?: ManualClock,
): UpstreamHarness {
  const h: UpstreamHarness = {
    sandbox: undefined as unknown as Sandbox,
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
      if (trafficClock) trafficClock.skip(1_000);
      else await new Promise((r) => setTimeout(r, 1100));
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
    client(limits, config = h.config, clock?: Clock) {
      const secrets = SecretStore.open(h.stateDir);
      importInitialTokens(config, secrets);
      const client = new VendorClient(config.vendor, config.assumptions, secrets, h.logger, limits, undefined, clock);
      h.clients.push(client);
      return { client, secrets };
    },
  };

  beforeAll(async () => {
    h.sandbox = await startSandbox({ ...opts, trafficClock: trafficClock?.now });
  });
  afterAll(async () => {
    await h.sandbox?.close();
  });
  afterEach(async () => {
    await Promise.all(h.clients.map((c) => c.close()));
    h.clients = [];
    if (h.stateDir) fs.rmSync(h.stateDir, { recursive: true, force: true });
  });
  return h;
}
