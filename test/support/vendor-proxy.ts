import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy on loopback in front of the sandbox's read host, for faults at an exact
 * request: every request is recorded with the commands it carries, and `decide` says whether
 * it goes through, is refused with 503 AUTH_UNAVAILABLE (nothing applied), is applied by the
 * sandbox and then loses its answer (the connection is cut before the client reads it), or
 * reaches the sandbox with its first command only, the others answered INTERNAL (a vendor
 * failing part way through a request: a command-level INTERNAL may or may not have applied).
 */

export interface ProxiedCommand {
  command: string;
  args: Record<string, unknown>;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The commands of a POST /v1 (empty for other routes). */
  commands: ProxiedCommand[];
  /** The HTTP status the request was answered with (or would have been, for a lost answer); unset until then. */
  status?: number;
}

export type Verdict = 'pass' | 'unavailable' | 'lose-answer' | 'first-command-only';

export interface VendorProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

function commandsOf(body: Buffer): ProxiedCommand[] {
  try {
    const parsed = JSON.parse(body.toString()) as { commands?: ProxiedCommand[] };
    return Array.isArray(parsed.commands) ? parsed.commands : [];
  } catch {
    return [];
  }
}

export async function startVendorProxy(
  target: string,
  decide: (r: ProxiedRequest) => Verdict = () => 'pass',
): Promise<VendorProxy> {
  const requests: ProxiedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const recorded: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', commands: commandsOf(body) };
    requests.push(recorded);
    const verdict = decide(recorded);
    if (verdict === 'unavailable') {
      recorded.status = 503;
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'ERROR', code: 'AUTH_UNAVAILABLE', message: 'injected by the test proxy' }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const partial = verdict === 'first-command-only';
    const sent = partial ? Buffer.from(JSON.stringify({ commands: recorded.commands.slice(0, 1) })) : body;
    const answer = await fetch(`${target}${recorded.path}`, {
      method: recorded.method,
      headers,
      body: sent.length ? sent : undefined,
    });
    recorded.status = answer.status;
    let bytes = Buffer.from(await answer.arrayBuffer());
    if (partial) {
      const first = JSON.parse(bytes.toString()) as { type: string; results: unknown[] };
      const failed = recorded.commands.slice(1).map((c, i) => ({
        command: c.command,
        id: String(i + 1),
        type: 'ERROR',
        code: 'INTERNAL',
        message: 'injected by the test proxy',
      }));
      bytes = Buffer.from(JSON.stringify({ ...first, results: [...first.results, ...failed] }));
    }
    if (verdict === 'lose-answer') {
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding'].includes(name))
        out[name] = value;
    });
    res.writeHead(answer.status, out);
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
