import { execFileSync } from 'node:child_process';
import { dovecotBinary } from '../test/support/dovecot';

export { startDovecot, type Dovecot } from '../test/support/dovecot';

/**
 * The bench installs Debian's dovecot-imapd when it is missing. The package may start a
 * system instance on port 143; the bench's own runs on a free loopback port beside it.
 */
export function ensureDovecotInstalled(): string {
  const existing = dovecotBinary();
  if (existing) return existing;
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'dovecot-imapd'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = dovecotBinary();
  if (!installed) throw new Error('dovecot-imapd did not install');
  return installed;
}
