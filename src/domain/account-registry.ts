import type { AccountView } from './account-view';

export interface PasswordCheck {
  verifyBridgePassword(mailbox: string, password: string): Promise<boolean>;
}

/** The bridged accounts, looked up by the login name mail clients use (the mailbox address). */
export class AccountRegistry {
  private readonly views = new Map<string, AccountView>();

  constructor(private readonly passwords: PasswordCheck) {}

  add(view: AccountView): void {
    this.views.set(view.account.toLowerCase(), view);
  }

  remove(account: string): void {
    this.views.delete(account.toLowerCase());
  }

  get(account: string): AccountView | undefined {
    return this.views.get(account.toLowerCase());
  }

  all(): AccountView[] {
    return [...this.views.values()];
  }

  /** The canonical account name if `password` is that account's bridge password. */
  async authenticate(username: string, password: string): Promise<string | null> {
    const view = this.get(username.trim());
    // an unknown user is checked too (against no hash), so it is answered as slowly as a known one
    const ok = await this.passwords.verifyBridgePassword(view?.account ?? username.trim(), password);
    return view && ok ? view.account : null;
  }
}
