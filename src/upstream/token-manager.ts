import type { Logger } from '../log';
import type { TokenPair, TokenVault } from '../store';
import { systemClock, type Clock } from '../util/clock';
import { NeedsNewTokensError, VendorError } from './errors';

/**
 * An account that needs new tokens costs no request per command: its stored refresh token is
 * tried again only this long after it was refused, the wait doubling up to `retryMaxMs`, in
 * case the vendor refused it in a bad moment.
 */
const retryFirstMs = 60_000;
const retryMaxMs = 60 * 60_000;

/**
 * Access-token lifecycle of one mailbox. On TOKEN_EXPIRED (or INVALID_TOKEN) exactly one
 * refresh runs however many requests noticed it (they all wait for it); the rotated pair is
 * persisted before the new access token is handed out, because the vendor kills the used
 * refresh token at once. A refused refresh token marks the account as needing new tokens,
 * persistently, with the CLI command that fixes it; from then on calls fail without a request
 * (but for the retries above) until a new pair is stored (`account add`, a reload of config
 * tokens), which the next call uses.
 */
export class TokenManager {
  private refreshing: Promise<string> | null = null;
  /** While the account needs new tokens: when its refresh token is tried again, and the wait after that. */
  private retry: { at: number; waitMs: number } | null = null;

  constructor(
    readonly mailbox: string,
    private readonly secrets: TokenVault,
    private readonly refreshCall: (refreshToken: string) => Promise<TokenPair>,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The access token for a request. An account needing new tokens fails with
   * NeedsNewTokensError at once, except when its retry is due: then its refresh token is tried.
   */
  usable(): Promise<string> {
    const stored = this.secrets.get(this.mailbox);
    if (stored && !stored.needsNewTokens) {
      this.retry = null;
      return Promise.resolve(stored.accessToken);
    }
    const now = this.clock.now();
    this.retry ??= { at: now + retryFirstMs, waitMs: retryFirstMs };
    if (!stored || now < this.retry.at) return Promise.reject(new NeedsNewTokensError(this.mailbox));
    const waitMs = Math.min(this.retry.waitMs * 2, retryMaxMs);
    this.retry = { at: now + waitMs, waitMs };
    this.logger.info({ mailbox: this.mailbox }, 'trying the refused refresh token again');
    return this.rotating(stored.refreshToken);
  }

  /** The access token to use now. */
  current(): string {
    const stored = this.secrets.get(this.mailbox);
    if (!stored || stored.needsNewTokens) throw new NeedsNewTokensError(this.mailbox);
    return stored.accessToken;
  }

  /** A stored access token other than `rejected` (rotated meanwhile, or replaced by `account add`), if any. */
  replacement(rejected: string): string | null {
    const token = this.current();
    return token === rejected ? null : token;
  }

  /** Called with the token a request was rejected with as expired; resolves to a fresh access token. */
  refresh(rejected: string): Promise<string> {
    if (this.refreshing) return this.refreshing;
    let stored: string | null;
    try {
      stored = this.replacement(rejected);
    } catch (err) {
      return Promise.reject(err);
    }
    // another caller already rotated it while this request was on the wire
    if (stored) return Promise.resolve(stored);
    return this.rotating(this.secrets.get(this.mailbox)!.refreshToken);
  }

  /** The one rotation under way, started with `refreshToken` unless one runs. */
  private rotating(refreshToken: string): Promise<string> {
    this.refreshing ??= this.rotate(refreshToken).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** The stored pair if another process rotated it since `refreshToken` was read. */
  private async rotatedElsewhere(refreshToken: string): Promise<string | null> {
    await this.secrets.reread?.();
    const stored = this.secrets.get(this.mailbox);
    return stored && !stored.needsNewTokens && stored.refreshToken !== refreshToken ? stored.accessToken : null;
  }

  private async rotate(refreshToken: string): Promise<string> {
    // a shared store (several nodes, the CLI) may hold a newer pair than this process saw
    const newer = await this.rotatedElsewhere(refreshToken);
    if (newer) return newer;
    let pair: TokenPair;
    try {
      pair = await this.refreshCall(refreshToken);
    } catch (err) {
      // auth and argument refusals are final; transport and 5xx failures are left to the caller
      if (err instanceof VendorError && (err.kind === 'auth' || err.kind === 'expired' || err.kind === 'invalid')) {
        // unless another process rotated the token meanwhile: the vendor killed the one used here
        const rotated = await this.rotatedElsewhere(refreshToken);
        if (rotated) return rotated;
        const dead = new NeedsNewTokensError(this.mailbox);
        await this.secrets.markNeedsNewTokens(this.mailbox, dead.message);
        this.logger.error(
          { mailbox: this.mailbox, code: err.code },
          'refresh token refused; the account needs new tokens',
        );
        throw dead;
      }
      throw err;
    }
    await this.secrets.putTokens(this.mailbox, pair);
    this.logger.info({ mailbox: this.mailbox }, 'access token refreshed; rotated pair persisted');
    return pair.accessToken;
  }
}
