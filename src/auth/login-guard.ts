import type { Logger } from '../log';
import { LoginThrottle, type ThrottleOptions } from './login-throttle';

export interface LoginAttempt {
  protocol: 'imap' | 'smtp';
  /** Remote address: failures are counted, and slowed, per address. */
  peer: string;
  username: string;
}

/** Every IMAP and SMTP login goes through here: throttled per peer, failures logged (never the password). */
export class LoginGuard {
  private readonly throttle: LoginThrottle;

  constructor(
    opts: ThrottleOptions,
    private readonly logger: Logger,
  ) {
    this.throttle = new LoginThrottle(opts);
  }

  /** The account `check` resolves to, or null when the login is refused. */
  async login(attempt: LoginAttempt, check: () => Promise<string | null>): Promise<string | null> {
    let account: string | null = null;
    const result = await this.throttle.attempt(attempt.peer, async () => {
      account = await check();
      return account !== null;
    });
    if (!result.ok)
      this.logger.warn(
        { ...attempt, failures: result.failures, delayedMs: result.delayedMs },
        result.delayedMs > 0 ? 'login refused (attempts from this address are slowed)' : 'login refused',
      );
    return account;
  }
}
