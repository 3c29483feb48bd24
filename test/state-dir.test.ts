import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { cliPath } from './support/cli-process';

/**
 * A state directory the daemon may not write (a bind mount owned by root, as a container's
 * uid 1000 meets it) stops the start with what to do, not with an EACCES from the first file.
 * As root the daemon runs without CAP_DAC_OVERRIDE (setpriv), which is what lets root write
 * anywhere; it keeps CAP_DAC_READ_SEARCH, so it reads the checkout whoever owns it and whatever
 * its mode (another uid could not read a checkout of mode 0700).
 */

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-readonly-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('an unwritable state directory names the uid and the chown that fixes it', async () => {
  const state = path.join(dir, 'state');
  fs.mkdirSync(state, { mode: 0o555 });
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: { readUrl: 'http://127.0.0.1:9', mailUrl: 'http://127.0.0.1:9', graphUrl: 'http://127.0.0.1:9' },
      stateDir: state,
      listen: { imapPort: 0, smtpPort: 0 },
      ops: { port: null },
    }),
  );
  const asRoot = process.getuid?.() === 0;
  const argv = [process.execPath, '-r', 'tsx/cjs', cliPath, 'start', '--config', config];
  const [cmd, ...args] = asRoot
    ? ['setpriv', '--bounding-set=-dac_override', '--inh-caps=-dac_override', ...argv]
    : argv;
  const result = await run(cmd, args, { timeout: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
  const uid = process.getuid?.();
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`the state directory ${state} is not writable by this process (uid ${uid}`);
  expect(result.stderr).toContain(`chown ${uid}:`);
});
