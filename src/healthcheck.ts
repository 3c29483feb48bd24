import http from 'node:http';
import net from 'node:net';
import type { ListenerSettings } from './config';

/** A wildcard listen address is reached on loopback. */
const reachable = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);

/** True when GET url answers 200 within `timeoutMs`. */
function answersOk(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * The container HEALTHCHECK: /healthz of the ops listener, or the IMAP greeting when that
 * listener is off; with `ready`, /readyz (an exec readiness probe that keeps the listener on loopback).
 */
export function healthy(config: ListenerSettings, ready = false, timeoutMs = 3000): Promise<boolean> {
  if (config.ops.port === null)
    return ready
      ? Promise.resolve(false)
      : imapAnswers(reachable(config.listen.host), config.listen.imapPort, timeoutMs);
  const host = reachable(config.ops.host);
  const route = ready ? '/readyz' : '/healthz';
  return answersOk(`http://${host.includes(':') ? `[${host}]` : host}:${config.ops.port}${route}`, timeoutMs);
}

/** True when an IMAP greeting ("* OK") arrives from host:port within `timeoutMs`. */
export function imapAnswers(host: string, port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('data', (d) => done(d.toString('latin1').startsWith('* OK')));
    socket.once('error', () => done(false));
  });
}
