/** A mailbox's vendor credentials and bridge password, as the token vault keeps them. */

/** A mailbox's vendor credentials: the refresh token rotates, and the one used dies at once. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface StoredAccount {
  accessToken: string;
  refreshToken: string;
  updatedAt: string;
  /** Set when the vendor refused the refresh token: the reason and the fix. */
  needsNewTokens?: string;
  /** Hash of the bridge password mail clients log in with (see auth/password-hash.ts). */
  passwordHash?: string;
}
