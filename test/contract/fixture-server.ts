import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Fixture, fill, type Values } from './fixtures';

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/**
 * A loopback HTTP server that answers each request with the next queued fixture response and
 * records what it was asked, so a test can compare the vendor client's requests with the fixtures.
 */
export class FixtureServer {
  readonly recorded: Recorded[] = [];
  private queue: Array<{ fixture: Fixture; values: Values }> = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FixtureServer> {
    let self: FixtureServer | undefined;
    const server = http.createServer((req, res) => self?.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FixtureServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Answers for the next requests, in order. */
  serve(...exchanges: Array<{ fixture: Fixture; values: Values }>): void {
    this.queue = exchanges;
    this.recorded.length = 0;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', this.url);
      const text = Buffer.concat(chunks).toString('utf8');
      this.recorded.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization,
        body: text ? JSON.parse(text) : undefined,
      });
      const next = this.queue.shift();
      if (!next) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'NO_FIXTURE_LEFT', error: 'the test queued no answer for this request' }));
        return;
      }
      const answer = fill(next.fixture.response, next.values);
      const payload = answer.text ?? JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        'content-type': answer.text === undefined ? 'application/json' : 'application/octet-stream',
        'content-length': Buffer.byteLength(payload),
        ...answer.headers,
      });
      res.end(payload);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
