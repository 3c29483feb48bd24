import http from 'node:http';

/** A route handler's answer: JSON, or text with its content type. */
export type Answer = { status: number; json: unknown } | { status: number; text: string; contentType: string };

export type Route = (body: unknown) => Promise<Answer>;

/** Largest request body a route reads (the control commands send a few fields). */
const maxBodyBytes = 64 * 1024;

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBodyBytes) req.destroy(new Error('request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : {});
      } catch {
        reject(new Error('request body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/** An http server answering `METHOD /path` from the table, 404 or 405 otherwise. */
export function routedServer(routes: Record<string, Route>, onError: (err: Error) => void): http.Server {
  return http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes[`${req.method} ${path}`];
    const send = (a: Answer) => {
      const body = 'json' in a ? `${JSON.stringify(a.json, null, 2)}\n` : a.text;
      res.writeHead(a.status, { 'content-type': 'json' in a ? 'application/json' : a.contentType });
      res.end(body);
    };
    if (!route) {
      const known = Object.keys(routes).some((k) => k.endsWith(` ${path}`));
      return send({ status: known ? 405 : 404, json: { error: known ? 'method not allowed' : 'not found' } });
    }
    readJson(req)
      .then(route)
      .then(send, (err: Error) => {
        onError(err);
        send({ status: 500, json: { error: err.message } });
      });
  });
}

export function listenOn(server: http.Server, ...args: [port: number, host: string] | [path: string]): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...(args as [number, string]), () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
