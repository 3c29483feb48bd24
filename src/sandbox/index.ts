import type { Clock } from '../util/clock';
import { Accounts } from './accounts';
import { controlApi } from './control-api';
import { graphApi } from './graph-api';
import { Conditions, listen, sendJson, type FaultOptions, type Handler, type Listener } from './http';
import { mailApi, type OutboxEntry } from './mail-api';
import { Quarantine } from './quarantine';
import { readApi } from './read-api';
import { SandboxStore } from './store';
import { TokenAuthority } from './tokens';
import { Traffic, type SandboxStats } from './traffic';
import { wireFormatWith, type WireFormatOverrides } from './wire-format';

/**
 * A faithful in-process emulator of the vendor API (shared/spec/mail-api.md plus its own reading
 * of what the spec leaves out, ./wire-format.ts) for tests, benchmarks and `mailbridge demo`.
 * See docs/sandbox.md.
 */

export type { FaultOptions } from './http';
export type { SandboxStats } from './traffic';
export { SandboxStore, MailboxState } from './store';
export { StoredMessage } from './message';

export interface SandboxOptions {
  host?: string;
  ports?: { read?: number; mail?: number; graph?: number; control?: number };
  seed?: number;
  /** The first one gets the corpus. */
  mailboxes?: string[];
  /** Corpus size of the first mailbox (up to 100,000). */
  messages?: number;
  /** The answer time of every read/mail/graph request; a read's own work is done within it (docs/sandbox.md). */
  latencyMs?: number;
  faults?: FaultOptions;
  /** Send-and-manage key of the main account; a second account gets `${apiKey}-2`. */
  apiKey?: string;
  /** A vendor shaped differently from ./wire-format.ts where the spec is silent (deep-merged). */
  wireFormat?: WireFormatOverrides;
  /** Clock base; advanceClock() adds an offset on top. */
  now?: () => number;
  /** Monotonic clock of the rate limits (spec section 8); performance.now() unless a test steers it. */
  trafficClock?: () => number;
  /** What latency and slow-downs wait on: real time unless a test moves it (requests on their way for clock time). */
  latencyClock?: Clock;
}

export interface Sandbox {
  urls: { read: string; mail: string; graph: string; control: string };
  apiKey: string;
  /** Key of a second account (for QUARANTINE_FORBIDDEN). */
  otherApiKey: string;
  issueTokens(mailbox: string): { accessToken: string; refreshToken: string };
  revokeTokens(mailbox: string): void;
  advanceClock(ms: number): void;
  now(): number;
  stats(mailbox?: string): SandboxStats;
  /** Every request the vendor hosts received since the last resetStats, refused ones included. */
  received(): number;
  resetStats(): void;
  setFaults(f: FaultOptions): void;
  setLatency(ms: number): void;
  store: SandboxStore;
  close(): Promise<void>;
}

export const maxCorpusSize = 100_000;
export const defaultSharedDomains = ['sandbox.test', 'shared-mail.test', 'inbox-pool.test'];
const day = 86_400_000;

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ?? 1;
  const base = opts.now ?? Date.now;
  let offset = 0;
  const now = () => base() + offset;
  const wireFormat = wireFormatWith(opts.wireFormat);
  const apiKey = opts.apiKey ?? 'sandbox-api-key';
  const otherApiKey = `${apiKey}-2`;
  const count = opts.messages ?? 200;
  if (!Number.isInteger(count) || count < 0 || count > maxCorpusSize)
    throw new Error(`messages must be an integer from 0 to ${maxCorpusSize}`);

  const store = new SandboxStore(seed, now);
  const [first, ...others] = opts.mailboxes ?? ['alice@sandbox.test', 'bob@sandbox.test'];
  // the corpus ends at the start of today (UTC), so sandboxes started the same day match exactly
  if (first) store.seedCorpus(first, count, Math.floor(now() / day) * day);
  for (const address of others) store.addMailbox(address);

  const tokens = new TokenAuthority(now);
  const traffic = new Traffic(opts.trafficClock);
  const conditions = new Conditions(seed, opts.latencyMs ?? 0, opts.faults ?? {}, opts.latencyClock);
  const accounts = new Accounts([apiKey, otherApiKey]);
  const quarantine = new Quarantine(seed, now);
  const outbox: OutboxEntry[] = [];
  const domains = [...defaultSharedDomains];
  const ports = opts.ports ?? {};

  const issueTokens = (mailbox: string) => {
    const box = store.mailbox(mailbox);
    if (!box) throw new Error(`unknown sandbox mailbox: ${mailbox}`);
    return tokens.issue(box.address);
  };
  const revokeTokens = (mailbox: string) => tokens.revoke(mailbox.toLowerCase());
  const setFaults = (f: FaultOptions) => (conditions.faults = { ...f });
  const setLatency = (ms: number) => (conditions.latencyMs = ms);
  /** Counts every request a vendor host receives, before anything can refuse it. */
  const counted =
    (handler: Handler): Handler =>
    (req, res, url) => {
      traffic.received++;
      return handler(req, res, url);
    };
  const internal = (body: Record<string, unknown>) => (res: Parameters<typeof sendJson>[0]) => sendJson(res, 500, body);

  const listeners: Listener[] = [];
  try {
    const read = await listen(
      host,
      ports.read ?? 0,
      counted(readApi({ store, tokens, traffic, conditions, wireFormat })),
      internal({ type: wireFormat.errorType, code: 'INTERNAL', message: 'internal error' }),
    );
    listeners.push(read);
    const mail = await listen(
      host,
      ports.mail ?? 0,
      counted(mailApi({ store, accounts, quarantine, conditions, wireFormat, outbox, now })),
      internal({ error: 'Unexpected server error', code: 'INTERNAL_SERVER_ERROR' }),
    );
    listeners.push(mail);
    const graph = await listen(
      host,
      ports.graph ?? 0,
      counted(graphApi({ store, accounts, conditions, wireFormat, domains })),
      internal({ error: 'Unexpected server error', code: 'INTERNAL_SERVER_ERROR' }),
    );
    listeners.push(graph);
    const urls = { read: read.url, mail: mail.url, graph: graph.url, control: '' };
    const control = await listen(
      host,
      ports.control ?? 0,
      controlApi({
        store,
        accounts,
        quarantine,
        outbox,
        domains,
        info: () => ({
          urls,
          apiKey,
          otherApiKey,
          mailboxes: [...store.mailboxes.keys()],
          now: new Date(now()).toISOString(),
        }),
        issueTokens,
        revokeTokens,
        advanceClock: (ms) => {
          offset += ms;
          return now();
        },
        stats: (m) => traffic.stats(m),
        resetStats: () => traffic.reset(),
        setFaults,
        setLatency,
      }),
      internal({ error: 'internal error' }),
    );
    listeners.push(control);
    urls.control = control.url;

    return {
      urls,
      apiKey,
      otherApiKey,
      issueTokens,
      revokeTokens,
      advanceClock: (ms) => {
        offset += ms;
      },
      now,
      stats: (m) => traffic.stats(m),
      received: () => traffic.received,
      resetStats: () => traffic.reset(),
      setFaults,
      setLatency,
      store,
      close: async () => {
        await Promise.all(listeners.map((l) => l.close()));
      },
    };
  } catch (err) {
    await Promise.all(listeners.map((l) => l.close()));
    throw err;
  }
}
