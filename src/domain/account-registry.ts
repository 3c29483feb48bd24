import { type AccountId, accountId } from '../model/account-id';
import type { AccountView } from './account-view';

export interface PasswordCheck {
  verifyBridgePassword(mailbox: string, password: string): Promise<boolean>;
}

/** The bridged accounts, looked up by the login name mail clients use (the mailbox address). */
export class AccountRegistry {
  private readonly views = new Map<AccountId, AccountView>();

  constructor(private readonly passwords: PasswordCheck) {}

  add(view: AccountView): void {
    this.views.set(view.account, view);
  }

  remove(account: AccountId): void {
    this.views.delete(account);
  }

  /** The view of a login name or address, in any spelling. */
  get(name: string): AccountView | undefined {
    return this.views.get(accountId(name));
  }

  all(): AccountView[] {
    return [...this.views.values()];
  }

  /** The canonical account name if `password` is that account's bridge password. */
  async authenticate(username: string, password: string): Promise<AccountId | null> {
    const view = this.get(username);
    // an unknown user is checked too (against no hash), so it is answered as slowly as a known one
    const ok = await this.passwords.verifyBridgePassword(view?.account ?? accountId(username), password);
    return view && ok ? view.account : null;
  }
}
