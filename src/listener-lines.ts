import type { Config } from './config';
import type { RunningBridge } from './bridge';

/** Every listener of a running bridge, one line each, as `start` and `demo` print them. */
export function listenerLines(config: Config, bridge: RunningBridge): string[] {
  const { host } = config.listen;
  const { ports } = bridge;
  const lines = [
    `  IMAP   ${host}:${ports.imap} (STARTTLS)`,
    ports.imaps === null ? '  IMAPS  off (listen.imapsPort)' : `  IMAPS  ${host}:${ports.imaps} (implicit TLS)`,
    `  SMTP   ${host}:${ports.smtp} (STARTTLS)`,
    ports.smtps === null ? '  SMTPS  off (listen.smtpsPort)' : `  SMTPS  ${host}:${ports.smtps} (implicit TLS)`,
    ports.ops === null
      ? '  ops    off (ops.port)'
      : `  ops    http://${config.ops.host}:${ports.ops}/healthz, /readyz, /metrics`,
    `  control ${bridge.controlSocket ?? 'unavailable (state directory path too long)'} (status, resync, reload)`,
  ];
  return lines;
}
