import http from 'node:http';
import { controlSocketPath } from './control-socket';

/** No daemon answers on the state directory's control socket. */
export class NoDaemonError extends Error {}

/**
 * The CLI side of the control socket: one JSON request to the daemon running on a state
 * directory. With `waitMs`, a daemon that has not answered by then (stopped, or stuck) is an
 * error rather than a command that never ends.
 */
export function callDaemon<T>(
  stateDir: string,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
  waitMs?: number,
): Promise<T> {
  const socketPath = controlSocketPath(stateDir);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path: route, method, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return reject(new Error(`the daemon answered ${route} with something other than JSON`));
          }
          if ((res.statusCode ?? 500) >= 400)
            return reject(new Error((parsed as { error?: string }).error ?? `HTTP ${res.statusCode}`));
          resolve(parsed as T);
        });
      },
    );
    if (waitMs !== undefined)
      req.setTimeout(waitMs, () =>
        req.destroy(
          new Error(`the daemon on ${stateDir} did not answer ${route} within ${(waitMs / 1000).toFixed(1)} s`),
        ),
      );
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
          ? new NoDaemonError(
              `no mailbridge daemon runs on the state directory ${stateDir} (no answer on ${socketPath}); start it with "mailbridge start", or pass the --config it runs with`,
            )
          : err,
      ),
    );
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
