import fs from 'node:fs';
import path from 'node:path';

/**
 * Request/response pairs of the vendor's wire format, written by hand from the spec's tables and
 * the assumptions of docs/vendor.md (never generated from mailbridge's code). test/contract/sandbox.test.ts
 * sends each request to the sandbox and compares the answer's shape; vendor-client.test.ts serves
 * each answer to the bridge's vendor client and compares the request it made.
 *
 * `{{name}}` stands for a value each side supplies (a token, a message id the sandbox holds).
 * The answer is compared by shape: same JSON types at every path the fixture shows (more keys are
 * allowed, the spec says more may exist), exact values only at the `exact` paths, null accepted
 * for the keys in `nullable`, and the `absent` paths must not exist. In paths `*` is any key or
 * index; an array is matched element by element when its length is the fixture's, otherwise every
 * element against the fixture's first.
 */
export interface Fixture {
  file: string;
  about: string;
  source: string[];
  setup?: string;
  request: {
    method: 'GET' | 'POST';
    path: string;
    query?: Record<string, string>;
    headers: Record<string, string>;
    body?: unknown;
  };
  response: { status: number; headers?: Record<string, string>; body?: unknown; text?: string };
  exact?: string[];
  nullable?: string[];
  absent?: string[];
}

export type Values = Record<string, string>;

const dir = path.join(__dirname, 'fixtures');

export function loadFixtures(): Fixture[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Omit<Fixture, 'file'>) }));
}

const placeholder = /\{\{(\w+)\}\}/g;

/** Placeholders replaced where a value is known; unknown ones stay as they are. */
export function fill<T>(value: T, values: Values): T {
  if (typeof value === 'string') return value.replace(placeholder, (whole, name: string) => values[name] ?? whole) as T;
  if (Array.isArray(value)) return value.map((v) => fill(v, values)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)])) as T;
  return value;
}

/** The host a route lives on (spec: read_url for /v1, mail_url for send and quarantine, graph_url otherwise). */
export function hostOf(f: Fixture): 'read' | 'mail' | 'graph' {
  if (f.request.path.startsWith('/v1')) return 'read';
  if (/^\/v3\.0\/(send$|quarantine\/)/.test(f.request.path)) return 'mail';
  return 'graph';
}

/** The credential of an Authorization header in either documented form (spec 5 rules 1 and 2). */
export function credential(header: string | undefined): string | undefined {
  return header?.replace(/^Bearer\s+/i, '');
}

function pathMatches(pattern: string, at: string[]): boolean {
  const parts = pattern.split('.');
  return parts.length === at.length && parts.every((p, i) => p === '*' || p === at[i]);
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Differences between a fixture answer and an actual one, as readable lines (empty: same shape). */
export function shapeDifferences(f: Fixture, expected: unknown, actual: unknown, at: string[] = []): string[] {
  const where = at.join('.') || '(body)';
  if ((f.exact ?? []).some((p) => pathMatches(p, at)))
    return JSON.stringify(expected) === JSON.stringify(actual)
      ? []
      : [`${where}: expected exactly ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  if (actual === null && expected !== null && (f.nullable ?? []).includes(at[at.length - 1] ?? '')) return [];
  if (kind(expected) !== kind(actual)) return [`${where}: expected ${kind(expected)}, got ${kind(actual)}`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length === 0) return [];
    if (actual.length === 0) return [`${where}: expected entries like ${JSON.stringify(expected[0])}, got none`];
    return actual.flatMap((item, i) =>
      shapeDifferences(f, expected.length === actual.length ? expected[i] : expected[0], item, [...at, String(i)]),
    );
  }
  if (kind(expected) === 'object') {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const missing = Object.keys(e).flatMap((k) =>
      k in a ? shapeDifferences(f, e[k], a[k], [...at, k]) : [`${[...at, k].join('.')}: missing`],
    );
    const present = Object.keys(a).flatMap((k) =>
      (f.absent ?? []).some((p) => pathMatches(p, [...at, k])) ? [`${[...at, k].join('.')}: must be absent`] : [],
    );
    return [...missing, ...present];
  }
  return [];
}
