/**
 * A bridged mailbox's identity. Mailbox addresses are compared without regard to case (the
 * domain is case-insensitive by RFC 5321, and no mail vendor gives two mailboxes local parts
 * that differ only in case), so an address becomes an AccountId in this one place, wherever it
 * enters: the config, LOGIN and AUTHENTICATE, SMTP AUTH, the CLI, the state store. Every map,
 * key, log line and metric label uses that one spelling.
 */
declare const accountIdBrand: unique symbol;

export type AccountId = string & { readonly [accountIdBrand]: true };

export function accountId(address: string): AccountId {
  return address.trim().toLowerCase() as AccountId;
}
