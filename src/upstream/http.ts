import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { redactSecrets } from '../log';
import { TransportError, VendorError } from './errors';
import { ignoreVendorTraffic, type RequestOutcome, type VendorObserver } from './observer';

/**
 * JSON over HTTP to the vendor: one keep-alive pool per origin (undici Agent), connect,
 * headers and body timeouts. Every non-2xx answer becomes a VendorError carrying the
 * documented code (7.1 {error, code}, 7.2 {type, code, message}); network failures become
 * TransportError. Header values are never put into an error, and vendor texts are scrubbed
 * of registered secrets before they are.
 */

type Headers = Record<string, string | string[] | undefined>;
type Method = 'GET' | 'POST';

/** Errors raised before a connection existed: the request cannot have reached the vendor. */
const connectFailures = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The vendor took longer than the configured timeout to answer. */
const timeouts = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface StreamResponse {
  status: number;
  body: Readable;
  headers: Headers;
}

export class Http {
  private readonly agent: Agent;

  constructor(
    timeoutMs: number,
    private readonly observer: VendorObserver = ignoreVendorTraffic,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: 32,
      connect: { timeout: Math.min(timeoutMs, 10_000) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /** `onAnswer` is called as soon as the answer's status and headers arrive (see RateLimiter). */
  async json<T>(
    method: Method,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
    onAnswer?: () => void,
  ): Promise<HttpResponse<T>> {
    const withType = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    const res = await this.stream(
      method,
      url,
      withType,
      body === undefined ? undefined : JSON.stringify(body),
      onAnswer,
    );
    const text = await readText(res.body, method, url);
    try {
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
    } catch {
      throw new VendorError(
        'INVALID_RESPONSE',
        `${describe(method, url)}: HTTP ${res.status} answer is not JSON`,
        res.status,
        {},
        'internal',
      );
    }
  }

  /** Any route; a 2xx body is handed over unread, anything else throws VendorError. */
  async stream(
    method: Method,
    url: string,
    headers: Record<string, string>,
    body?: string,
    onAnswer?: () => void,
  ): Promise<StreamResponse> {
    let res: Awaited<ReturnType<typeof request>>;
    const started = performance.now();
    const report = (outcome: RequestOutcome) =>
      this.observer.request(new URL(url).pathname, outcome, (performance.now() - started) / 1000);
    try {
      res = await request(url, { method, headers, body, dispatcher: this.agent });
      onAnswer?.();
    } catch (err) {
      report('transport_error');
      const code = (err as { code?: unknown }).code;
      const unsent = typeof code === 'string' && connectFailures.has(code);
      throw new TransportError(
        `${describe(method, url)} failed: ${redactSecrets((err as Error).message)}`,
        err,
        !unsent,
        typeof code === 'string' && timeouts.has(code),
      );
    }
    report(outcomeOf(res.statusCode));
    if (res.statusCode >= 200 && res.statusCode < 300)
      return { status: res.statusCode, body: res.body, headers: res.headers };
    throw errorFromResponse(res.statusCode, await readText(res.body, method, url), res.headers);
  }

  /**
   * A 2xx answer with its body read whole, or null as soon as that grows past `upTo` bytes. A connection lost
   * while reading is a TransportError, so the caller's retries cover the body too.
   */
  async bytes(
    url: string,
    headers: Record<string, string>,
    upTo: number,
    onAnswer?: () => void,
  ): Promise<HttpResponse<Buffer | null>> {
    const res = await this.stream('GET', url, headers, undefined, onAnswer);
    return { status: res.status, body: await readBody(res.body, 'GET', url, upTo), headers: res.headers };
  }

  close(): Promise<void> {
    return this.agent.closed ? Promise.resolve() : this.agent.close();
  }
}

function outcomeOf(status: number): RequestOutcome {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return status < 300 ? 'success' : 'client_error';
}

/** Method and path only: query strings may carry ids, and URLs never carry credentials here. */
function describe(method: Method, url: string): string {
  return `${method} ${new URL(url).pathname}`;
}

async function readBody(body: Readable, method: Method, url: string, upTo = Infinity): Promise<Buffer | null> {
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > upTo) {
        body.destroy();
        return null;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new TransportError(
      `${describe(method, url)}: connection lost while reading the answer`,
      err,
      true,
      typeof code === 'string' && timeouts.has(code),
    );
  }
}

async function readText(body: Readable, method: Method, url: string): Promise<string> {
  return ((await readBody(body, method, url)) as Buffer).toString('utf8');
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterSeconds(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\s*\d+\s*$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function errorFromResponse(status: number, text: string, headers: Headers): VendorError {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    // not JSON: the status code decides below
  }
  const code =
    typeof parsed.code === 'string'
      ? parsed.code
      : status === 429
        ? 'RATE_LIMITED'
        : status >= 500
          ? 'INTERNAL_SERVER_ERROR'
          : `HTTP_${status}`;
  const message = redactSecrets(String(parsed.message ?? parsed.error ?? `HTTP ${status}`));
  const retryAfter = retryAfterSeconds(headers['retry-after']);
  return new VendorError(code, message, status, {
    ...parsed,
    ...(retryAfter === null ? {} : { retryAfterSeconds: retryAfter }),
  });
}
