import type { StoredAccount } from '../model/tokens';

/** Spec section 8: an access token lives 1 hour, a refresh token 15 days (both from when the pair was issued). */
const accessLifetimeMs = 60 * 60 * 1000;
const refreshLifetimeMs = 15 * 24 * 60 * 60 * 1000;

export type TokenCondition = 'valid' | 'refreshable' | 'needs_new_tokens' | 'missing';

export interface TokenState {
  condition: TokenCondition;
  /** Estimated from when the pair was stored, which is when the bridge got it. */
  accessExpiresAt: number | null;
  refreshExpiresAt: number | null;
  problem: string | null;
}

export function tokenState(mailbox: string, stored: StoredAccount | undefined, now: number): TokenState {
  if (!stored)
    return {
      condition: 'missing',
      accessExpiresAt: null,
      refreshExpiresAt: null,
      problem: `no tokens stored; run "mailbridge account add --mailbox ${mailbox}"`,
    };
  const issued = Date.parse(stored.updatedAt);
  const accessExpiresAt = issued + accessLifetimeMs;
  const refreshExpiresAt = issued + refreshLifetimeMs;
  if (stored.needsNewTokens)
    return { condition: 'needs_new_tokens', accessExpiresAt, refreshExpiresAt, problem: stored.needsNewTokens };
  if (refreshExpiresAt <= now)
    return {
      condition: 'needs_new_tokens',
      accessExpiresAt,
      refreshExpiresAt,
      problem: `the refresh token is older than 15 days and has expired; run "mailbridge account add --mailbox ${mailbox}" with a new pair`,
    };
  return {
    condition: accessExpiresAt > now ? 'valid' : 'refreshable',
    accessExpiresAt,
    refreshExpiresAt,
    problem: null,
  };
}
