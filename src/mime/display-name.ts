import type { Address } from 'nodemailer/lib/addressparser';
import { casemap } from './casemap';
import { headerText } from './header-text';

/**
 * The sort value of DISPLAYFROM and DISPLAYTO (RFC 5957 section 3) for an address field's
 * first address, parsed, in casemap form: the first address's display name, RFC 2047-decoded; without one
 * (or an empty one) its addr-spec, `mailbox@domain` (the mailbox alone without a domain); a
 * group counts by its name, as Dovecot reads a group's start. "" without an address.
 */
export function displaySortValue(first: Address | undefined): string {
  if (!first) return '';
  if (first.group) return casemap(first.name);
  const name = first.name ? headerText(first.name).trim() : '';
  return casemap(name || first.address);
}
