import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoDirPrefix } from './demo';

/**
 * The config file of the newest running demo of this user, or null. A demo's temporary state
 * directory lives only while it runs (src/demo.ts), so one that holds a config file is a
 * demo in progress; another user's directories are never taken.
 */
export function runningDemoConfig(tmpdir = os.tmpdir()): string | null {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = fs.readdirSync(tmpdir).filter((n) => n.startsWith(demoDirPrefix));
  } catch {
    return null;
  }
  const found = names
    .map((n) => path.join(tmpdir, n, 'config.json'))
    .flatMap((file) => {
      try {
        const st = fs.statSync(file);
        return uid === undefined || st.uid === uid ? [{ file, at: st.mtimeMs }] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.at - a.at);
  return found[0]?.file ?? null;
}
