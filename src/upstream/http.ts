import { Agent, request } from 'undici';
import { TransportError, VendorError } from './errors';

/**
 * JSON over HTTP to the vendor with keep-alive connections and timeouts. Every non-2xx answer
 * becomes a VendorError carrying the documented code; network failures become
 * TransportError. Authorization values never appear in an error.
 */

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export interface BinaryResponse {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export class Http {
  private readonly agent: Agent;

  constructor(private readonly timeoutMs: number) {
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 32, connectTimeout: Math.min(timeoutMs, 10_000) });
  }

  async json<T>(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown): Promise<HttpResponse<T>> {
    const res = await this.raw(method, url, { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body === undefined ? undefined : JSON.stringify(body));
    let parsed: unknown;
    try {
      parsed = res.body.length ? JSON.parse(res.body.toString('utf8')) : {};
    } catch {
      throw new VendorError(res.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'INVALID_RESPONSE', `vendor answered HTTP ${res.status} with a body that is not JSON`, res.status, {}, res.status >= 500 ? 'internal' : 'invalid');
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Any route; throws VendorError for non-2xx answers. */
  async raw(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<BinaryResponse> {
    let res;
    try {
      res = await request(url, { method, headers, body, dispatcher: this.agent, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    } catch (err) {
      throw new TransportError(`${method} ${new URL(url).pathname} failed: ${(err as Error).message}`, err);
    }
    let buf: Buffer;
    try {
      buf = Buffer.from(await res.body.arrayBuffer());
    } catch (err) {
      throw new TransportError(`${method} ${new URL(url).pathname}: connection lost while reading the answer`, err);
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return { status: res.statusCode, body: buf, headers: res.headers };
    throw errorFromResponse(res.statusCode, buf, res.headers);
  }

  close(): Promise<void> {
    return this.agent.closed ? Promise.resolve() : this.agent.close();
  }
}

function errorFromResponse(status: number, body: Buffer, headers: Record<string, string | string[] | undefined>): VendorError {
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    // not JSON: fall back to the status code below
  }
  const code = typeof parsed.code === 'string' ? parsed.code : status === 429 ? 'RATE_LIMITED' : status >= 500 ? 'INTERNAL_SERVER_ERROR' : `HTTP_${status}`;
  const message = String(parsed.message ?? parsed.error ?? `HTTP ${status}`);
  const retryAfter = Number(headers['retry-after']);
  const details = { ...parsed, ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}) };
  return new VendorError(code, message, status, details);
}
