import crypto from 'node:crypto';

export const accessPrefix = 'sbx_at_';
export const refreshPrefix = 'sbx_rt_';
export const accessLifetimeMs = 3_600_000;
export const refreshLifetimeMs = 15 * 86_400_000;

interface Grant {
  mailbox: string;
  expiresAt: number;
}

export type TokenCheck =
  | { ok: true; mailbox: string }
  | { ok: false; code: 'INVALID_TOKEN' }
  | { ok: false; code: 'TOKEN_EXPIRED'; mailbox: string };

/**
 * Mailbox token pairs (spec section 5). Revocation is immediate here: the sandbox has no
 * token cache, which is the strictest behaviour the spec allows.
 */
export class TokenAuthority {
  private readonly access = new Map<string, Grant>();
  private readonly refresh = new Map<string, Grant>();

  constructor(private readonly now: () => number) {}

  issue(mailbox: string): { accessToken: string; refreshToken: string } {
    const accessToken = accessPrefix + crypto.randomBytes(24).toString('base64url');
    const refreshToken = refreshPrefix + crypto.randomBytes(24).toString('base64url');
    this.access.set(accessToken, { mailbox, expiresAt: this.now() + accessLifetimeMs });
    this.refresh.set(refreshToken, { mailbox, expiresAt: this.now() + refreshLifetimeMs });
    return { accessToken, refreshToken };
  }

  private check(map: Map<string, Grant>, prefix: string, token: string): TokenCheck {
    const grant = token.startsWith(prefix) ? map.get(token) : undefined;
    if (!grant) return { ok: false, code: 'INVALID_TOKEN' };
    if (this.now() >= grant.expiresAt) return { ok: false, code: 'TOKEN_EXPIRED', mailbox: grant.mailbox };
    return { ok: true, mailbox: grant.mailbox };
  }

  verifyAccess(token: string): TokenCheck {
    return this.check(this.access, accessPrefix, token);
  }

  /** The mailbox a refresh token belongs to, valid or not; null when unknown. */
  refreshOwner(refreshToken: string): string | null {
    return this.refresh.get(refreshToken)?.mailbox ?? null;
  }

  /** Rotation: the refresh token used dies at once, whatever the outcome of the new pair. */
  rotate(refreshToken: string): TokenCheck & { pair?: { accessToken: string; refreshToken: string } } {
    const check = this.check(this.refresh, refreshPrefix, refreshToken);
    if (!check.ok) return check;
    this.refresh.delete(refreshToken);
    return { ...check, pair: this.issue(check.mailbox) };
  }

  revoke(mailbox: string): void {
    for (const map of [this.access, this.refresh]) {
      for (const [token, grant] of map) if (grant.mailbox === mailbox) map.delete(token);
    }
  }
}
