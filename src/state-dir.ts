import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config';

const fix = 'set "stateDir" (or MAILBRIDGE_STATE_DIR) to a directory this user may create or write';

/** Why `mkdir` of `dir` failed, in words that name the directory at fault. */
function whyNot(dir: string, code: string | undefined): string {
  const parent = path.dirname(dir);
  const uid = process.getuid?.() ?? -1;
  if (code === 'EACCES' || code === 'EPERM') return `${parent} is not writable by this process (uid ${uid})`;
  if (code === 'ENOTDIR') return `${parent} is not a directory`;
  if (code === 'EEXIST') return `${dir} exists and is not a directory`;
  if (code === 'EROFS') return `${parent} is on a read-only file system`;
  return `${parent} does not take new directories (${code})`;
}

/**
 * `mkdir -p` one level at a time: Node's recursive mkdir retries a parent that exists but
 * refuses children with ENOENT (/proc, /sys) for ever; here each level is tried once.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      throw new ConfigError(
        `the state directory ${dir} cannot be created: ${whyNot(d, (err as NodeJS.ErrnoException).code)}; ${fix}`,
      );
    }
  }
  if (!fs.statSync(dir).isDirectory())
    throw new ConfigError(`the state directory ${dir} cannot be created: ${whyNot(dir, 'EEXIST')}; ${fix}`);
}

/**
 * Creates the state directory (0700) or checks an existing one, such as a bind mount, before
 * anything is written there: a directory this process may not write fails with what to do,
 * instead of an EACCES from the first file. One owned by this user is tightened to 0700.
 */
export function ensureStateDir(dir: string): void {
  makeDirs(path.resolve(dir));
  const st = fs.statSync(dir);
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    const uid = process.getuid?.() ?? -1;
    const gid = process.getgid?.() ?? -1;
    throw new ConfigError(
      `the state directory ${dir} is not writable by this process (uid ${uid}, gid ${gid}); it belongs to uid ${st.uid} with mode ${(st.mode & 0o777).toString(8)}. ` +
        `For a bind mount, give the host directory to this uid: chown ${uid}:${gid} HOST_DIR && chmod 700 HOST_DIR (or use a named volume, which the image prepares)`,
    );
  }
  if (st.uid === process.getuid?.() && (st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}
