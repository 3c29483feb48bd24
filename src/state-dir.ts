import fs from 'node:fs';

/**
 * Creates the state directory (0700) or checks an existing one, such as a bind mount, before
 * anything is written there: a directory this process may not write fails with what to do,
 * instead of an EACCES from the first file. One owned by this user is tightened to 0700.
 */
export function ensureStateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    const uid = process.getuid?.() ?? -1;
    const gid = process.getgid?.() ?? -1;
    throw new Error(
      `the state directory ${dir} is not writable by this process (uid ${uid}, gid ${gid}); it belongs to uid ${st.uid} with mode ${(st.mode & 0o777).toString(8)}. ` +
        `For a bind mount, give the host directory to this uid: chown ${uid}:${gid} HOST_DIR && chmod 700 HOST_DIR (or use a named volume, which the image prepares)`,
    );
  }
  if (st.uid === process.getuid?.() && (st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}
