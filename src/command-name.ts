import fs from 'node:fs';
import path from 'node:path';

/** This installation's bin/mailbridge.js (the same from src/ and dist/). */
export const binPath = path.resolve(__dirname, '..', 'bin', 'mailbridge.js');

function realpath(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

/**
 * A package's `node_modules/.bin`: npx and npm run put it first on the PATH of what they run,
 * but it is not on the PATH of the shell the user types the printed commands into.
 */
function npmBinDir(dir: string): boolean {
  return path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules';
}

/**
 * How a user runs this installation from a shell, for the commands printed to them:
 * `mailbridge` when that name on PATH is this installation (a global install), else the
 * absolute path of its bin (a checkout after `npm ci`, where `mailbridge` is not on PATH, and
 * `npx mailbridge` there, which finds it in node_modules/.bin).
 */
export function mailbridgeCommand(env: NodeJS.ProcessEnv = process.env): string {
  const own = realpath(binPath);
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter((d) => d && !npmBinDir(path.resolve(d)))) {
    const found = realpath(path.join(dir, 'mailbridge'));
    if (found) return found === own ? 'mailbridge' : binPath;
  }
  return binPath;
}
