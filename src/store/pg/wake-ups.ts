import pg from 'pg';
import { wakeUpChannel } from './leases';

/**
 * One connection LISTENing on the wake-up channel: each notification (delivered at the commit
 * that sent it) calls `wake`. Lost, the connection is made again after `retryMs`; meanwhile the
 * periodic looks go on, so nothing but speed depends on it.
 */
export class WakeUps {
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly wake: () => void,
    private readonly retryMs: number,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    this.client = client;
    client.on('notification', () => this.wake());
    client.on('error', () => this.again(client));
    client.on('end', () => this.again(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${wakeUpChannel}`);
    } catch {
      this.again(client);
    }
  }

  private again(client: pg.Client): void {
    if (this.stopped || this.client !== client || this.retry) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.start();
    }, this.retryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
