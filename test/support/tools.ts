import { execFileSync } from 'node:child_process';

/**
 * The Debian package behind each outside program the tests drive, and how to tell it works.
 * A test that needs one calls requireTools in beforeAll: a missing tool fails the file with
 * the line that installs it, never a silent skip. `npm test` installs them all first
 * (scripts/test-deps.sh).
 */
export const testTools = {
  swaks: { pkg: 'swaks', probe: ['swaks', '--version'] },
  // swaks only recommends the TLS module it needs for STARTTLS and SMTPS
  'swaks-tls': { pkg: 'libnet-ssleay-perl', probe: ['perl', '-MNet::SSLeay', '-e', '1'] },
  curl: { pkg: 'curl', probe: ['curl', '--version'] },
  python3: { pkg: 'python3', probe: ['python3', '-c', 'import imaplib'] },
  // the Prometheus project's text-format parser, for Debian's own python
  'prometheus-parser': {
    pkg: 'python3-prometheus-client',
    probe: ['/usr/bin/python3', '-c', 'import prometheus_client.parser'],
  },
  neomutt: { pkg: 'neomutt', probe: ['neomutt', '-v'] },
  mbsync: { pkg: 'isync', probe: ['mbsync', '-v'] },
  script: { pkg: 'bsdutils', probe: ['script', '--version'] },
  // the reference server of the conformance suite (test/imap/conformance), run privately
  dovecot: { pkg: 'dovecot-imapd', probe: ['/usr/sbin/dovecot', '--version'] },
  's-nail': { pkg: 's-nail', probe: ['s-nail', '-V'] },
  // the state store of several bridge nodes (test/support/postgres.ts runs a private cluster)
  postgres: { pkg: 'postgresql', probe: ['sh', '-c', 'ls /usr/lib/postgresql/*/bin/initdb'] },
} as const;

export type TestTool = keyof typeof testTools;

/** Throws, naming the install command, unless every tool runs. */
export function requireTools(...tools: TestTool[]): void {
  checkTools(tools.map((t) => ({ name: t, ...testTools[t] })));
}

export function checkTools(tools: { name: string; pkg: string; probe: readonly string[] }[]): void {
  const missing = tools.filter(({ probe }) => {
    try {
      execFileSync(probe[0], probe.slice(1), { stdio: 'ignore', timeout: 10_000 });
      return false;
    } catch {
      return true;
    }
  });
  if (!missing.length) return;
  const pkgs = [...new Set(missing.map((t) => t.pkg))].join(' ');
  throw new Error(
    `missing test tools: ${missing.map((t) => t.name).join(', ')}. ` +
      `Install with: apt-get install -y --no-install-recommends ${pkgs} (or run: bash scripts/test-deps.sh)`,
  );
}
