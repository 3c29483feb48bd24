import type { Config } from '../config';
import type { Logger } from '../log';
import type { TokenPair, TokenVault } from '../store';
import type { Assumptions } from './assumptions';
import type { ReleaseResult, SendResult, VendorApi } from './api';
import { VendorError } from './errors';
import { Http } from './http';
import { MailboxClient } from './mailbox-client';
import { ignoreVendorTraffic, type VendorObserver } from './observer';
import { RateLimiter, type LimiterOptions } from './rate-limiter';
import type { SendRequest, SharedDomainList } from './types';
import { accountId } from '../model/account-id';
import { systemClock, type Clock } from '../util/clock';

/**
 * One typed function per documented route. Mailbox routes get a client (own limiter, own
 * token manager) per mailbox; the send-and-manage routes share one limiter, since the spec
 * leaves their limits unstated and the reading limits are the safe guess (sends and sender
 * creation in the `write` lane, the shared-domain list in `content`).
 */
export class VendorClient implements VendorApi {
  private readonly http: Http;
  private readonly mailboxes = new Map<string, MailboxClient>();
  private readonly keyLimiter: RateLimiter;

  constructor(
    private readonly vendor: Config['vendor'],
    private readonly assumptions: Assumptions,
    private readonly secrets: TokenVault,
    private readonly logger: Logger,
    /** Limiter settings per mailbox and for the key routes; the vendor's limits unless overridden (tests). */
    private readonly limits: Partial<LimiterOptions> = {},
    private readonly observer: VendorObserver = ignoreVendorTraffic,
    /** Times the mailboxes' gates and the key routes', retries and dead-token retries (tests move it). */
    private readonly clock: Clock = systemClock,
    /** Throws when the mailbox may no longer be written (another node serves it): asked as each write is sent. */
    private readonly writeFence: (mailbox: string) => void = () => undefined,
  ) {
    this.http = new Http(vendor.timeoutMs, observer);
    this.keyLimiter = new RateLimiter({ ...limits, observer: observer.gate('key') }, clock);
  }

  mailbox(address: string): MailboxClient {
    const key = accountId(address);
    let client = this.mailboxes.get(key);
    if (!client) {
      client = new MailboxClient(
        address,
        this.http,
        this.vendor.readUrl,
        this.assumptions,
        this.secrets,
        (refreshToken, answered) => this.refreshTokens(refreshToken, answered),
        new RateLimiter({ ...this.limits, observer: this.observer.gate(key) }, this.clock),
        this.logger,
        this.observer,
        this.clock,
        () => this.writeFence(address),
      );
      this.mailboxes.set(key, client);
    }
    return client;
  }

  /** POST /v1/token/refresh; the used refresh token dies at the vendor as soon as this is answered. */
  private async refreshTokens(refreshToken: string, answered: () => void): Promise<TokenPair> {
    const f = this.assumptions.tokenRefresh;
    const res = await this.http.json<Record<string, unknown>>(
      'POST',
      `${this.vendor.readUrl}/v1/token/refresh`,
      {},
      { refresh_token: refreshToken },
      answered,
    );
    const accessToken = res.body[f.accessField];
    const newRefresh = res.body[f.refreshField];
    if (typeof accessToken !== 'string' || typeof newRefresh !== 'string') {
      throw new VendorError(
        'INVALID_RESPONSE',
        'token refresh answer lacks the new token pair',
        res.status,
        {},
        'internal',
      );
    }
    return { accessToken, refreshToken: newRefresh };
  }

  private keyHeaders(): Record<string, string> {
    if (!this.vendor.apiKey)
      throw new VendorError(
        'MISSING_AUTH_HEADER',
        'no send-and-manage key configured: set vendor.apiKey or MAILBRIDGE_API_KEY',
        401,
      );
    return { authorization: `Bearer ${this.vendor.apiKey}` };
  }

  /** Sends are never retried here: a timeout may still have queued the email. */
  async send(req: SendRequest): Promise<SendResult> {
    const res = await this.keyLimiter.run('write', (answered) =>
      this.http.json<Record<string, unknown>>(
        'POST',
        `${this.vendor.mailUrl}/v3.0/send`,
        this.keyHeaders(),
        req,
        answered,
      ),
    );
    if (typeof res.body.id !== 'string' || !res.body.id)
      throw new VendorError('INVALID_RESPONSE', 'send answer carries no email id', res.status, {}, 'internal');
    return { id: res.body.id };
  }

  async releaseQuarantine(quarantineId: string): Promise<ReleaseResult> {
    const res = await this.keyLimiter.run('write', (answered) =>
      this.http.json<Record<string, unknown>>(
        'POST',
        `${this.vendor.mailUrl}/v3.0/quarantine/release`,
        this.keyHeaders(),
        { quarantine_id: quarantineId },
        answered,
      ),
    );
    const id = res.body[this.assumptions.releaseIdField];
    return { id: typeof id === 'string' ? id : null, body: res.body };
  }

  async sharedDomains(): Promise<SharedDomainList> {
    return (
      await this.keyLimiter.run('content', (answered) =>
        this.http.json<SharedDomainList>('GET', `${this.vendor.graphUrl}/v3.0/free/domains`, {}, undefined, answered),
      )
    ).body;
  }

  async createSender(args: { domain: string; localPart?: string; name?: string }): Promise<Record<string, unknown>> {
    const body = {
      domain: args.domain,
      ...(args.localPart ? { local_part: args.localPart } : {}),
      ...(args.name ? { name: args.name } : {}),
    };
    return (
      await this.keyLimiter.run('write', (answered) =>
        this.http.json<Record<string, unknown>>(
          'POST',
          `${this.vendor.graphUrl}${this.assumptions.senderPath}`,
          this.keyHeaders(),
          body,
          answered,
        ),
      )
    ).body;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

export function createVendorClient(
  config: Config,
  secrets: TokenVault,
  logger: Logger,
  observer?: VendorObserver,
  writeFence?: (mailbox: string) => void,
  clock: Clock = systemClock,
  /** Every request waits this long after the start (what the last run left, vendor-handover.ts). */
  holdMs = 0,
): VendorClient {
  const limits = holdMs > 0 ? { quietUntil: clock.now() + holdMs } : {};
  return new VendorClient(config.vendor, config.assumptions, secrets, logger, limits, observer, clock, writeFence);
}
