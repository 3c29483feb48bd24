import type { AddressInfo } from 'node:net';
import type { Logger } from '../log';
import { closeServer, listenOn, routedServer } from './http-util';
import type { BridgeMetrics } from './metrics';
import type { Readiness } from './readiness';

/**
 * The operations listener: `/healthz` (the process and its mail listeners are up),
 * `/readyz` (see readiness.ts), `/metrics` (Prometheus text) and Thunderbird's autoconfig. It serves nothing secret
 * and changes nothing, so it may be opened to a scraper; control commands use the socket
 * in the state directory (control-socket.ts).
 */

export interface OpsListenerOptions {
  host: string;
  port: number;
  metrics: BridgeMetrics;
  readiness: Readiness;
  /** Each mail listener and whether it accepts connections. */
  listeners(): Record<string, boolean>;
  /** Thunderbird's autoconfig document for the accounts (client-config.ts), at the paths Thunderbird asks. */
  autoconfig(): string;
  logger: Logger;
}

export interface RunningOpsListener {
  port: number;
  close(): Promise<void>;
}

export async function startOpsListener(opts: OpsListenerOptions): Promise<RunningOpsListener> {
  const autoconfig = async () => ({ status: 200, text: opts.autoconfig(), contentType: 'application/xml' });
  const server = routedServer(
    {
      'GET /healthz': async () => {
        const listeners = opts.listeners();
        const up = Object.values(listeners).every(Boolean);
        return { status: up ? 200 : 503, json: { status: up ? 'ok' : 'down', listeners } };
      },
      'GET /readyz': async () => {
        const report = await opts.readiness.check();
        return { status: report.ready ? 200 : 503, json: report };
      },
      'GET /mail/config-v1.1.xml': autoconfig,
      'GET /.well-known/autoconfig/mail/config-v1.1.xml': autoconfig,
      'GET /metrics': async () => ({
        status: 200,
        text: await opts.metrics.text(),
        contentType: opts.metrics.contentType,
      }),
    },
    (err) => opts.logger.warn({ err: err.message }, 'ops listener request failed'),
  );
  await listenOn(server, opts.port, opts.host);
  return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}
