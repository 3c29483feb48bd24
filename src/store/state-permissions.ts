import fs from 'node:fs';
import path from 'node:path';

/**
 * The state dir holds vendor tokens, password hashes, the TLS key and mail, so only the
 * daemon's user may read it: directories 0700, files 0600, forced at every start. A mode
 * that cannot be changed (the path belongs to another user) refuses the start, naming the
 * command that fixes it. Symbolic links are left alone, not followed.
 */
export function enforceStatePermissions(stateDir: string): void {
  tighten(stateDir, stateDir);
}

function tighten(file: string, stateDir: string): void {
  const st = fs.lstatSync(file);
  if (st.isSymbolicLink()) return;
  const wanted = st.isDirectory() ? 0o700 : 0o600;
  if ((st.mode & 0o777) !== wanted) {
    try {
      fs.chmodSync(file, wanted);
    } catch (err) {
      throw new Error(
        `${file} has mode ${(st.mode & 0o777).toString(8)} and it cannot be changed to ${wanted.toString(8)} ` +
          `(${(err as NodeJS.ErrnoException).code}); as the owner of the state directory, run: ` +
          `chown -R "$(id -un)" ${stateDir} && chmod -R u=rwX,go= ${stateDir}`,
      );
    }
  }
  if (st.isDirectory()) for (const entry of fs.readdirSync(file)) tighten(path.join(file, entry), stateDir);
}
