import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../util/clock';
import { Rng, hash32 } from './rng';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => Promise<void>;

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** Reads a JSON body of at most `limit` bytes; never throws. An empty body reads as {}. */
export async function readJson(req: http.IncomingMessage, limit: number): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) return { ok: false, status: 413, message: `body larger than ${limit} bytes` };
      chunks.push(chunk);
    }
  } catch {
    return { ok: false, status: 400, message: 'request body could not be read' };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, status: 400, message: 'body is not valid JSON' };
  }
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendEncoded(res, status, encodeJson(body), headers);
}

export const encodeJson = (body: unknown): Buffer => Buffer.from(JSON.stringify(body));

/** Sends a JSON body encoded beforehand (encodeJson). */
export function sendEncoded(
  res: http.ServerResponse,
  status: number,
  data: Buffer,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': data.length,
    ...headers,
  });
  res.end(data);
}

/** Sends the head and about half of `body`, then destroys the connection (FaultOptions.truncateRate). */
export function sendTruncated(
  res: http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface Listener {
  url: string;
  close(): Promise<void>;
}

/** An HTTP listener whose handler failures become a 500 instead of a crash. */
export async function listen(
  host: string,
  port: number,
  handler: Handler,
  onError: (res: http.ServerResponse) => void,
): Promise<Listener> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    handler(req, res, url).catch(() => onError(res));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface FaultOptions {
  /** Share of commands (read host) or requests (mail, graph) failing with an internal error. */
  errorRate?: number;
  /** Share of requests answered 503 AUTH_UNAVAILABLE. */
  unavailableRate?: number;
  /** Share of requests whose socket is destroyed without an answer. */
  resetRate?: number;
  /**
   * Share of command requests holding a write (flag, label, move, send, reply) that are applied
   * and then lose their connection before the answer: the client cannot know it happened.
   */
  lostWriteAnswerRate?: number;
  /**
   * Share of answers (command results, raw downloads) cut off: the status line, the headers and
   * part of the body are sent, then the connection is destroyed.
   */
  truncateRate?: number;
  /** Share of requests delayed by an extra slowMs. */
  slowRate?: number;
  slowMs?: number;
  /**
   * The routes that get these faults, as `METHOD /path` (e.g. `GET /v1/raw`); every vendor
   * route when absent. Lets a test break one download while the rest of the vendor works.
   */
  routes?: string[];
}

/** `METHOD /path` of a request, as FaultOptions.routes names it. */
export function routeOf(req: http.IncomingMessage): string {
  return `${req.method} ${new URL(req.url ?? '/', 'http://sandbox').pathname.replace(/\/+$/, '')}`;
}

/**
 * Latency and fault injection for the vendor hosts (never the control API). Faults are drawn
 * from a seeded stream so a failing run can be repeated.
 */
export class Conditions {
  private readonly rng: Rng;

  constructor(
    seed: number,
    public latencyMs: number,
    public faults: FaultOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.rng = new Rng(hash32(seed, 0xfa17));
  }

  /** The faults of `req`'s route: none when FaultOptions.routes leaves it out. */
  of(req: http.IncomingMessage): FaultOptions {
    const { routes } = this.faults;
    return !routes || routes.includes(routeOf(req)) ? this.faults : {};
  }

  roll(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && this.rng.next() < rate;
  }

  /** Waits the configured latency (plus a slow-down if drawn) and says which fault to inject. */
  async before(req: http.IncomingMessage): Promise<'reset' | 'unavailable' | null> {
    const faults = this.of(req);
    let wait = this.latencyMs;
    if (this.roll(faults.slowRate)) wait += faults.slowMs ?? 1000;
    if (wait > 0) await new Promise<void>((r) => this.clock.after(wait, r));
    if (this.roll(faults.resetRate)) return 'reset';
    if (this.roll(faults.unavailableRate)) return 'unavailable';
    return null;
  }
}
