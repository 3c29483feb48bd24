import type { Logger } from '../log';
import type { SecretStore } from '../store/secrets';
import { NeedsNewTokensError, VendorError } from './errors';
import type { TokenPair } from './types';

/**
 * Access-token lifecycle of one mailbox. On TOKEN_EXPIRED exactly one refresh runs however
 * many requests noticed it (they all wait for it); the rotated pair is persisted before the
 * new access token is handed out. A refused refresh token marks the account as needing new
 * tokens, persistently, with the CLI command that fixes it.
 */
export class TokenManager {
  private refreshing: Promise<string> | null = null;

  constructor(
    readonly mailbox: string,
    private readonly secrets: SecretStore,
    private readonly refreshCall: (refreshToken: string) => Promise<TokenPair>,
    private readonly logger: Logger,
  ) {}

  /** The access token to use now. */
  current(): string {
    const stored = this.secrets.get(this.mailbox);
    if (!stored || stored.needsNewTokens) throw new NeedsNewTokensError(this.mailbox);
    return stored.accessToken;
  }

  /** Called with the token a request was rejected with; resolves to a fresh access token. */
  refresh(rejected: string): Promise<string> {
    const stored = this.secrets.get(this.mailbox);
    if (!stored || stored.needsNewTokens) return Promise.reject(new NeedsNewTokensError(this.mailbox));
    // another caller already rotated it while this request was on the wire
    if (stored.accessToken !== rejected) return Promise.resolve(stored.accessToken);
    this.refreshing ??= this.rotate(stored.refreshToken).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async rotate(refreshToken: string): Promise<string> {
    let pair: TokenPair;
    try {
      pair = await this.refreshCall(refreshToken);
    } catch (err) {
      if (err instanceof VendorError && (err.kind === 'auth' || err.kind === 'expired' || err.kind === 'invalid')) {
        this.secrets.markNeedsNewTokens(this.mailbox, new NeedsNewTokensError(this.mailbox).message);
        this.logger.error({ mailbox: this.mailbox, code: err.code }, 'refresh token refused; the account needs new tokens');
        throw new NeedsNewTokensError(this.mailbox);
      }
      throw err;
    }
    this.secrets.putTokens(this.mailbox, pair);
    this.logger.info({ mailbox: this.mailbox }, 'access token refreshed; rotated pair persisted');
    return pair.accessToken;
  }
}
