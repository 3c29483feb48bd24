import type { Logger } from '../log';
import type { VendorObserver } from './observer';
import type { GateLane, RateLimiter } from './rate-limiter';
import { RetryBudget, sleep } from './retry-policy';
import type { Clock } from '../util/clock';

/** Recovers from a failure by changing what the next attempt sends; true to try again. */
export type Recovery = (err: unknown) => Promise<boolean>;

/**
 * The way through the mailbox's RateLimiter (15 requests a second, 15 in flight): one call in
 * a lane, repeated as the retry policy says (retry-policy.ts). The slot is held until the call
 * settles (a body read included); it is given back before any waiting (refresh, backoff).
 */
export class RequestGate {
  constructor(
    private readonly mailbox: string,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly observer: VendorObserver,
    private readonly clock: Clock,
  ) {}

  async call<T>(
    lane: GateLane,
    idempotent: boolean,
    call: (answered: () => void) => Promise<T>,
    recover?: Recovery,
  ): Promise<T> {
    const budget = new RetryBudget(idempotent);
    for (;;) {
      const slot = await this.limiter.acquire(lane);
      let result: T;
      try {
        result = await call(slot.answered);
      } catch (err) {
        slot.release();
        if (recover && (await recover(err))) continue;
        const retry = budget.after(err);
        if (!retry) throw err;
        if (retry.kind === 'rate') {
          this.logger.warn(
            { mailbox: this.mailbox, seconds: retry.seconds },
            'vendor rate limit hit; pausing the mailbox for Retry-After',
          );
          this.limiter.pause(retry.seconds * 1000);
          this.observer.retry('rate_limited');
          continue;
        }
        this.logger.debug(
          { mailbox: this.mailbox, attempt: retry.attempt, error: (err as Error).message },
          'transient vendor failure; retrying',
        );
        this.observer.retry('transient');
        await sleep(this.clock, retry.delayMs);
        continue;
      }
      slot.release();
      return result;
    }
  }
}
