import path from 'node:path';

/**
 * How to start `<dir>/<name>` as a worker thread from compiled JavaScript and from the
 * TypeScript sources alike (tests and the bench run through tsx, whose loader the worker needs
 * as well). `callerFile` is the caller's __filename: its extension says which form runs.
 */
export function workerScript(callerFile: string, name: string): { file: string; options: { eval?: true } } {
  const ext = path.extname(callerFile);
  const file = path.join(path.dirname(callerFile), `${name}${ext}`);
  if (ext === '.ts') return { file: `require('tsx/cjs'); require(${JSON.stringify(file)});`, options: { eval: true } };
  return { file, options: {} };
}
