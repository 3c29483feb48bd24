import addressparser, { type Address } from 'nodemailer/lib/addressparser';
import { casemap } from './casemap';
import { headerText } from './header-text';

/**
 * A message's header fields as SEARCH reads them: the values of a field in its top-level header
 * lines (as imap-core's parser gives them, folded lines joined), decoded, and for HEADER terms
 * in the i;unicode-casemap form the terms are matched in.
 */

/** A header field's values as written, unfolded. */
function rawHeaderValues(lines: readonly string[], name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return lines
    .filter((l) => l.toLowerCase().startsWith(prefix))
    .map((l) =>
      l
        .slice(prefix.length)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim(),
    );
}

/** A header field's values, RFC 2047-decoded. */
export function headerValues(lines: readonly string[], name: string): string[] {
  return rawHeaderValues(lines, name).map((v) => headerText(v));
}

/** Fields holding addresses: FROM, TO, CC, BCC and HEADER on them match the parsed addresses. */
const addressFields = new Set(['from', 'to', 'cc', 'bcc', 'sender', 'reply-to']);

/**
 * An address field's parsed addresses as Dovecot searches them: each written `name <address>`,
 * groups as `name: members;`, comments and the route syntax gone, so `<user (c)@ (c) domain.org>`
 * is found by `user@domain.org`.
 */
export function writtenAddresses(addresses: readonly Address[]): string {
  const one = (a: Address): string =>
    a.group
      ? `${headerText(a.name)}: ${a.group.map(one).join(', ')};`
      : a.name
        ? `${headerText(a.name)} <${a.address}>`
        : a.address;
  return addresses.map(one).join(', ');
}

/** The texts a HEADER term searches in one message, in casemap form. */
export function searchedValues(lines: readonly string[], name: string): string[] {
  return (
    addressFields.has(name)
      ? rawHeaderValues(lines, name).map((v) => writtenAddresses(addressparser(v)))
      : headerValues(lines, name)
  ).map(casemap);
}
