import type http from 'node:http';

/** Send-and-manage key errors of spec 7.1 that the control API can force on an account. */
export const accountErrors: Readonly<Record<string, { status: number; error: string }>> = {
  INVALID_API_KEY: { status: 401, error: 'API key invalid or revoked' },
  ACCOUNT_BLOCKED: { status: 401, error: 'Account blocked' },
  NO_CREDITS_LEFT: { status: 401, error: 'No email credits left' },
  USER_NOT_FOUND: { status: 401, error: 'User not found' },
  MISSING_USER_PRIVILEGES: { status: 401, error: 'Missing user privileges' },
  EMAIL_CREDITS_NOT_FOUND: { status: 401, error: 'Error fetching email credits' },
  CREDENTIAL_TEMPORARILY_BLOCKED: { status: 429, error: 'Key temporarily blocked for repeated policy violations' },
  IP_TEMPORARILY_BLOCKED: { status: 429, error: 'IP temporarily blocked for repeated policy violations' },
  INTERNAL_SERVER_ERROR: { status: 500, error: 'Unexpected server error; retry' },
};

export interface Account {
  id: string;
  key: string;
  /** Error every keyed call of this account gets until cleared (or `remaining` runs out). */
  forced: { code: string; remaining: number | null } | null;
  /** Sandbox-clock times of successful quarantine releases (for the 10 per 3 h limit). */
  releases: number[];
}

export type KeyCheck = { ok: true; account: Account } | { ok: false; status: number; code: string; error: string };

export class Accounts {
  readonly list: Account[];

  constructor(keys: string[]) {
    this.list = keys.map((key, i) => ({ id: `acct_${i + 1}`, key, forced: null, releases: [] }));
  }

  byKey(key: string): Account | undefined {
    return this.list.find((a) => a.key === key);
  }

  /** Authorization: Bearer KEY or the bare key (spec 5, rule 1). */
  authenticate(req: http.IncomingMessage): KeyCheck {
    const header = req.headers.authorization;
    if (header === undefined)
      return { ok: false, status: 401, code: 'MISSING_AUTH_HEADER', error: 'No Authorization header' };
    const account = this.byKey(header.replace(/^Bearer\s+/i, '').trim());
    if (!account) return { ok: false, code: 'INVALID_API_KEY', ...pick('INVALID_API_KEY') };
    const forced = account.forced;
    if (forced) {
      if (forced.remaining !== null && --forced.remaining <= 0) account.forced = null;
      return { ok: false, code: forced.code, ...pick(forced.code) };
    }
    return { ok: true, account };
  }

  /** Makes the account of `key` (default: the first) fail with `code`; null clears. */
  force(code: string | null, times: number | null, key?: string): void {
    if (code !== null && !accountErrors[code]) throw new Error(`unknown account error code: ${code}`);
    const account = key === undefined ? this.list[0] : this.byKey(key);
    if (!account) throw new Error('unknown api key');
    account.forced = code === null ? null : { code, remaining: times };
  }
}

function pick(code: string): { status: number; error: string } {
  return accountErrors[code];
}
