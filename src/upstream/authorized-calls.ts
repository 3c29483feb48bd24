import { VendorError } from './errors';
import type { VendorObserver } from './observer';
import type { Lane } from './rate-limiter';
import type { Recovery, RequestGate } from './request-gate';
import type { TokenManager } from './token-manager';

/**
 * Calls with the mailbox's access token, through the gate: an expired one is refreshed once
 * (the refresh itself is a request in the gate's first lane), a rotated one followed, and the
 * request repeated. The outcome is reported to the observer (readiness: the vendor and the
 * token work).
 */
export class AuthorizedCalls {
  constructor(
    private readonly mailbox: string,
    private readonly gate: RequestGate,
    private readonly tokens: TokenManager,
    private readonly observer: VendorObserver,
  ) {}

  async call<T>(
    lane: Lane,
    idempotent: boolean,
    call: (token: string, answered: () => void) => Promise<T>,
  ): Promise<T> {
    let token = await this.tokens.usable();
    let refreshed = false;
    const recover: Recovery = async (err) => {
      if (!(err instanceof VendorError)) return false;
      const newer = err.code === 'INVALID_TOKEN' ? this.tokens.replacement(token) : null;
      if (newer) token = newer;
      // a revoked access token may come with a live refresh token; a refused refresh marks the account
      else if ((err.code === 'TOKEN_EXPIRED' || err.code === 'INVALID_TOKEN') && !refreshed) {
        if (err.code === 'TOKEN_EXPIRED') this.observer.retry('token_expired');
        token = await this.tokens.refresh(token);
        refreshed = true;
      } else return false;
      return true;
    };
    try {
      const result = await this.gate.call(lane, idempotent, (answered) => call(token, answered), recover);
      this.observer.mailboxResult(this.mailbox, null);
      return result;
    } catch (err) {
      // refusals of one request's arguments still prove the vendor and the token work
      const answered = err instanceof VendorError && !err.transient && err.kind !== 'auth';
      this.observer.mailboxResult(this.mailbox, answered ? null : (err as Error));
      throw err;
    }
  }
}
