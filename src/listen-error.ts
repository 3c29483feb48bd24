import type { Config } from './config';
import { ConfigError } from './config';

/** A listener's port: the config field, the MAILBRIDGE_* variable and the command-line flag that set it. */
interface PortSetting {
  name: string;
  field: string;
  env: string;
  flag: string;
  /** A port to suggest: the default, or for the implicit-TLS listeners (off by default) 993/465 above 1000. */
  example: number;
  port: (cfg: Pick<Config, 'listen' | 'ops'>) => number | null;
}

const setting = (
  name: string,
  field: string,
  env: string,
  flag: string,
  example: number,
  port: PortSetting['port'],
): PortSetting => ({ name, field, env, flag, example, port });

export const portSettings: PortSetting[] = [
  setting('IMAP', 'listen.imapPort', 'MAILBRIDGE_IMAP_PORT', '--imap-port', 1143, (c) => c.listen.imapPort),
  setting('IMAPS', 'listen.imapsPort', 'MAILBRIDGE_IMAPS_PORT', '--imaps-port', 1993, (c) => c.listen.imapsPort),
  setting('SMTP', 'listen.smtpPort', 'MAILBRIDGE_SMTP_PORT', '--smtp-port', 1025, (c) => c.listen.smtpPort),
  setting('SMTPS', 'listen.smtpsPort', 'MAILBRIDGE_SMTPS_PORT', '--smtps-port', 1465, (c) => c.listen.smtpsPort),
  setting('ops', 'ops.port', 'MAILBRIDGE_OPS_PORT', '--ops-port', 9925, (c) => c.ops.port),
];

/**
 * A listener that could not bind, as one line naming the setting that chose its port or
 * address and how to change it (config field, environment variable, flag); null for any
 * other error.
 */
export function explainListenError(err: unknown, cfg: Config): ConfigError | null {
  const { code, port, address } = err as { code?: string; port?: number; address?: string };
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return null;
  const setting = portSettings.find((s) => port !== undefined && port !== 0 && s.port(cfg) === port);
  if (code === 'EADDRNOTAVAIL' || !setting) {
    const hostSetting =
      setting?.name === 'ops' ? 'ops.host (MAILBRIDGE_OPS_HOST)' : 'listen.host (MAILBRIDGE_LISTEN_HOST)';
    return new ConfigError(
      `cannot listen on ${address}:${port} (${code}): set ${hostSetting} to an address of this machine, e.g. 127.0.0.1`,
    );
  }
  const change = `choose another port with ${setting.field} in the config, ${setting.env}=PORT or ${setting.flag} PORT`;
  if (code === 'EACCES')
    return new ConfigError(
      `the ${setting.name} port ${port} needs privileges this process lacks (ports below 1024 need root or CAP_NET_BIND_SERVICE): ${change} (above 1023)`,
    );
  return new ConfigError(
    `the ${setting.name} port ${address}:${port} is already in use by another program ("ss -ltnp" names it): stop it, or ${change}`,
  );
}
