import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox';
import type { CommandResult, VendorMessage } from '../../src/upstream/types';
import { expect, vi } from 'vitest';
import { ManualClock } from '../support/manual-clock';

/** Thin HTTP helpers over global fetch for the sandbox tests. */

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply<T>> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** The manual clock each sandbox started here counts its rate windows on. */
const trafficClocks = new WeakMap<Sandbox, ManualClock>();

/** A sandbox whose rate windows and latency count on a clock of its own, moved only by the helpers here. */
export async function clockedSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const clock = new ManualClock();
  const sb = await startSandbox({ ...opts, trafficClock: clock.now, latencyClock: clock });
  trafficClocks.set(sb, clock);
  return sb;
}

function clockOf(sb: Sandbox): ManualClock {
  const clock = trafficClocks.get(sb);
  if (!clock) throw new Error('the sandbox was not started by clockedSandbox');
  return clock;
}

/**
 * Sends one request to a sandbox whose latency is `ms` and shows it is answered only once the
 * sandbox's clock has moved that far (by hand: no real wait). `meanwhile` runs once the request
 * has arrived, while it is on its way.
 */
export async function heldFor<T>(
  sb: Sandbox,
  ms: number,
  send: () => Promise<T>,
  meanwhile?: () => Promise<unknown>,
): Promise<T> {
  const clock = clockOf(sb);
  const arrived = sb.received() + 1;
  let answered = false;
  const reply = send().finally(() => {
    answered = true;
  });
  await vi.waitFor(() => expect(sb.received()).toBe(arrived), { timeout: 10_000, interval: 5 });
  await meanwhile?.();
  await clock.advance(ms - 1);
  expect(answered).toBe(false);
  await clock.advance(1);
  return reply;
}

/**
 * fetch that waits out 429s as the spec asks (Retry-After), for tests that are not about the
 * limit: on the sandbox's clock (clockedSandbox), which it moves past the pause at once.
 */
export async function politeFetch(sb: Sandbox, url: string, init: RequestInit): Promise<Response> {
  const clock = clockOf(sb);
  for (;;) {
    const res = await fetch(url, init);
    if (res.status !== 429) return res;
    await res.arrayBuffer();
    clock.skip(Number(res.headers.get('retry-after')) * 1000);
  }
}

/** POST {read}/v1 with the given commands (politely: 429s are waited out). */
type CommandReply = { type: string; results: CommandResult[]; code?: string };
export async function commands(sb: Sandbox, token: string, list: unknown[]): Promise<Reply<CommandReply>> {
  const res = await politeFetch(sb, `${sb.urls.read}/v1`, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json' },
    body: JSON.stringify({ commands: list }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as CommandReply };
}

/** Data of a single successful command, failing loudly otherwise. */
export async function one<T = Record<string, unknown>>(
  sb: Sandbox,
  token: string,
  command: string,
  args?: Record<string, unknown>,
): Promise<T> {
  const r = await commands(sb, token, [{ command, args }]);
  const result = r.body.results?.[0];
  if (r.status !== 200 || result?.type !== 'SUCCESS')
    throw new Error(`${command}: ${r.status} ${JSON.stringify(r.body)}`);
  return result.data as T;
}

export async function dump(sb: Sandbox, mailbox: string, folder?: string, include?: string): Promise<VendorMessage[]> {
  const q = new URLSearchParams({
    mailbox,
    ...(folder ? { folder } : {}),
    ...(include !== undefined ? { include } : {}),
  });
  const r = await call<{ messages: VendorMessage[] }>(`${sb.urls.control}/messages?${q}`);
  if (r.status !== 200) throw new Error(`dump: ${r.status}`);
  return r.body.messages;
}

export function control<T = Record<string, unknown>>(sb: Sandbox, route: string, body?: unknown): Promise<Reply<T>> {
  return call<T>(`${sb.urls.control}${route}`, { body });
}
