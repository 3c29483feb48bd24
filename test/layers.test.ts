import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';

/**
 * The layering rules of biome.json: the protocols (IMAP, SMTP) and the domain reach the vendor
 * only through the Connector, so none of them may import src/upstream; the domain and the
 * vendor connector never import the protocols. Checked by linting, with the project's own
 * biome.json, a file with such an import in each place. (A file takes its rule options from the
 * last override that sets them, so two overrides covering one folder would drop a rule.)
 */

const root = path.resolve(__dirname, '..');
const biome = path.join(root, 'node_modules', '.bin', 'biome');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-layers-'));
  fs.copyFileSync(path.join(root, 'biome.json'), path.join(dir, 'biome.json'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Lints `src/<room>/probe-<n>.ts`, which imports `../<target>/x`: its exit code and what biome said. */
async function lint(room: string, target: string): Promise<{ code: number; output: string }> {
  const file = `src/${room}/probe-${target}.ts`;
  fs.mkdirSync(path.join(dir, 'src', room), { recursive: true });
  fs.writeFileSync(path.join(dir, file), `import { x } from '../${target}/x';\n\nexport const probe = x;\n`);
  try {
    const { stdout, stderr } = await promisify(execFile)(biome, ['lint', '--vcs-enabled=false', file], { cwd: dir });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

test.each(['smtp', 'imap', 'domain', 'mime', 'store'])('src/%s may not import src/upstream', async (room) => {
  const { code, output } = await lint(room, 'upstream');
  expect(code).toBe(1);
  expect(output).toContain('lint/style/noRestrictedImports');
  expect(output).toContain('only through its Connector');
});

test.each(['upstream', 'domain', 'mime', 'store'])('src/%s may import neither protocol', async (room) => {
  for (const target of ['imap', 'smtp']) {
    const { code, output } = await lint(room, target);
    expect(code).toBe(1);
    expect(output).toContain('never know the protocols');
  }
});

test('the wiring (src/ops, like bridge.ts and the CLI) may import both', async () => {
  for (const target of ['upstream', 'smtp']) {
    expect(await lint('ops', target)).toEqual({ code: 0, output: expect.not.stringContaining('noRestrictedImports') });
  }
});

/**
 * The engine boundary (src/imap/engine.ts): only engine-adapter.ts speaks imap-core's hook
 * convention (hooks assigned on the server, arguments popped off `...raw`, answers as
 * callback tuples) and writes untagged responses by hand; the rest of src/imap uses the typed
 * MailboxBackend, Session and UntaggedWriter.
 */
const rawEngineCalls: Array<[string, RegExp]> = [
  ['untagged responses written by hand', /\bwriteStream\.write\b|\.formatResponse\(/],
  // a string or template that starts an untagged response with its data (`* ${seq} FETCH`, '* BYE ')
  ['untagged lines put together', /[`'"]\* (\$\{|[A-Z0-9]+ )/],
  ['hook arguments popped off a rest parameter', /\.\.\.raw\b/],
  ['answers as callback tuples', /\bcallback\(null\b/],
  ['hooks assigned on the engine', /\.on[A-Z]\w* = /],
];

/** Source text without its comments, which may quote the wire. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

test('only the engine adapter speaks imap-core’s hook convention', () => {
  const imap = path.join(root, 'src', 'imap');
  const adapter = withoutComments(fs.readFileSync(path.join(imap, 'engine-adapter.ts'), 'utf8'));
  const found: string[] = [];
  for (const name of fs.readdirSync(imap).filter((f) => f.endsWith('.ts') && f !== 'engine-adapter.ts')) {
    const text = withoutComments(fs.readFileSync(path.join(imap, name), 'utf8'));
    for (const [what, pattern] of rawEngineCalls) if (pattern.test(text)) found.push(`${name}: ${what}`);
  }
  expect(found).toEqual([]);
  // the patterns find what they look for: the adapter itself has each
  for (const [what, pattern] of rawEngineCalls.filter(([what]) => !what.includes('rest parameter')))
    expect(adapter, what).toMatch(pattern);
});

test('the engine’s server is typed, not a table of unknown hooks', () => {
  const typings = fs.readFileSync(path.join(root, 'src', 'types', 'untyped-modules.d.ts'), 'utf8');
  expect(typings).not.toMatch(/\[\w+: string\]: unknown/);
});
