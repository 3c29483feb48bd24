import { randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../auth/password-hash';
import { registerSecret } from '../log';
import type { StoredAccount, TokenPair } from '../model/tokens';
import type { TokenVault } from './state-store';
import { accountId } from '../model/account-id';

/** `value` once `write` is done, synchronously when it was. */
function after<T>(write: void | Promise<void>, value: T): T | Promise<T> {
  return write instanceof Promise ? write.then(() => value) : value;
}

/**
 * What a token vault does with its records (rotation keeps the password, passwords are only
 * hashed), whatever keeps them: a file written synchronously (./secrets.ts) or sealed rows in
 * PostgreSQL written asynchronously (./pg/pg-token-vault.ts). `write` must be durable when it
 * returns or resolves.
 */
export abstract class TokenRecords implements TokenVault {
  abstract get(mailbox: string): StoredAccount | undefined;
  abstract mailboxes(): string[];
  /** Stores the record of `mailbox`, or forgets it (undefined). */
  protected abstract write(mailbox: string, account: StoredAccount | undefined): void | Promise<void>;

  putTokens(mailbox: string, pair: TokenPair): void | Promise<void> {
    registerSecret(pair.accessToken);
    registerSecret(pair.refreshToken);
    const previous = this.get(mailbox);
    return this.write(accountId(mailbox), {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      updatedAt: new Date().toISOString(),
      ...(previous?.passwordHash ? { passwordHash: previous.passwordHash } : {}),
    });
  }

  /** Stores a record as it is, password hash included (`mailbridge migrate-state`). */
  restore(mailbox: string, account: StoredAccount): void | Promise<void> {
    registerSecret(account.accessToken);
    registerSecret(account.refreshToken);
    return this.write(accountId(mailbox), account);
  }

  /** Forgets the mailbox's tokens and bridge password (`account remove`). */
  remove(mailbox: string): boolean | Promise<boolean> {
    if (!this.get(mailbox)) return false;
    return after(this.write(accountId(mailbox), undefined), true);
  }

  markNeedsNewTokens(mailbox: string, reason: string): void | Promise<void> {
    const account = this.get(mailbox);
    if (!account) return;
    return this.write(accountId(mailbox), { ...account, needsNewTokens: reason });
  }

  /** A new random bridge password; only its hash is kept, the plaintext is returned once. */
  setBridgePassword(mailbox: string): string | Promise<string> {
    const account = this.get(mailbox);
    if (!account)
      throw new Error(`no tokens stored for ${mailbox}; run "mailbridge account add --mailbox ${mailbox}" first`);
    const password = randomBytes(18).toString('base64url');
    return after(this.write(accountId(mailbox), { ...account, passwordHash: hashPassword(password) }), password);
  }

  /** Never blocks the event loop; a mailbox without a password costs as much as one with. */
  async verifyBridgePassword(mailbox: string, password: string): Promise<boolean> {
    const stored = this.get(mailbox)?.passwordHash;
    const verdict = await verifyPassword(stored, password);
    const account = this.get(mailbox);
    if (verdict.rehash && account && account.passwordHash === stored)
      await this.write(accountId(mailbox), { ...account, passwordHash: hashPassword(password) });
    return verdict.ok;
  }
}
