import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Logger } from '../log';
import { closeServer, listenOn, type Route, routedServer } from './http-util';

/**
 * The daemon's control channel: HTTP over a unix socket in the state directory. Whoever can
 * open it can read the state directory anyway (0700), so the socket needs no secret of its
 * own and is never reachable from the network, whatever the ops listener's host.
 */

export const controlSocketName = 'control.sock';

/** Unix socket paths are limited to 107 bytes on Linux (108 on macOS would be 103). */
const maxSocketPath = 107;

export function controlSocketPath(stateDir: string): string {
  return path.join(stateDir, controlSocketName);
}

export interface RunningControlSocket {
  path: string;
  close(): Promise<void>;
}

/** A socket file nobody answers on is a leftover of a daemon that did not stop cleanly. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/status', timeout: 2000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

export async function startControlSocket(
  stateDir: string,
  routes: Record<string, Route>,
  logger: Logger,
): Promise<RunningControlSocket | null> {
  const socketPath = controlSocketPath(stateDir);
  if (Buffer.byteLength(socketPath) > maxSocketPath) {
    logger.warn(
      { socketPath },
      'state directory path too long for the control socket: status, resync and reload from the CLI are unavailable (SIGHUP still reloads)',
    );
    return null;
  }
  if (fs.existsSync(socketPath)) {
    if (await answers(socketPath))
      throw new Error(`another mailbridge already runs on the state directory ${stateDir}; stop it first`);
    fs.rmSync(socketPath, { force: true });
  }
  const server = routedServer(routes, (err) => logger.warn({ err: err.message }, 'control request failed'));
  await listenOn(server, socketPath);
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    close: async () => {
      await closeServer(server);
      fs.rmSync(socketPath, { force: true });
    },
  };
}
