import addressparser from 'nodemailer/lib/addressparser';
import parse from '@mailbridge/imap-core/lib/indexer/parse-mime-tree';
import withSourceRoutes from '@mailbridge/imap-core/lib/indexer/source-routes';
import { Memo } from '../util/memo';

/**
 * parsedHeader of a header block given as its fields, as imap-core's parser makes it
 * (MIMEParser.processNodeHeader, lib/indexer/parse-mime-tree.js), for header blocks that are
 * ASCII: the parser reads such a block without re-decoding it, so the steps are its own,
 * minus the line joining and byte conversions. Parsed address fields are remembered by value
 * (correspondents repeat from message to message) and copied out, so no two trees share them.
 * model-tree.ts describes a message with it; test/mime/model-description.test.ts compares the
 * result with the parser's for every corpus message.
 */

const parser = new parse.MIMEParser('');

interface ParsedAddress {
  name?: string;
  address?: string;
  route?: string;
  group?: ParsedAddress[];
}

const parsedAddresses = new Memo<string, ParsedAddress[]>(10_000);

/** The field value a parsed address list was read from, when it was read from one (model-envelope.ts). */
const sources = new WeakMap<object, string>();

export function addressSource(list: unknown): string | undefined {
  return typeof list === 'object' && list !== null ? sources.get(list) : undefined;
}

function copy(a: ParsedAddress): ParsedAddress {
  return a.group ? { ...a, group: a.group.map(copy) } : { ...a };
}

function addressesOf(value: string): ParsedAddress[] {
  let parsed = parsedAddresses.get(value);
  if (parsed === undefined) {
    parsed = withSourceRoutes(value, (addressparser(value) as ParsedAddress[]) || []) as ParsedAddress[];
    parsedAddresses.set(value, parsed);
  }
  return parsed.map(copy);
}

const addressFields = ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc'];

/** Whether every field is ASCII and would be read as one field (the parser's reading then is parsedFields'). */
export function plainFields(fields: readonly string[]): boolean {
  return fields.every((f) => /^[\x21-\x7e][\t\x20-\x7e]*(\r\n[ \t][\t\x20-\x7e]*)*$/.test(f));
}

/** processNodeHeader of `fields` (folded, CRLF inside), for fields plainFields accepts. */
export function parsedFields(fields: readonly string[]): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (let i = fields.length - 1; i >= 0; i--) {
    const field = fields[i];
    const colon = field.indexOf(':');
    const key = (colon < 0 ? field : field.slice(0, colon)).trim().toLowerCase();
    const value = colon < 0 ? '' : field.slice(colon + 1).trim();
    if (/[^a-zA-Z0-9\-*]/.test(key) || key.length >= 100) continue;
    const known = parsed[key];
    if (known === undefined) parsed[key] = value.includes('\n') ? value.replace(/\s*\r?\n\s*/g, ' ') : value;
    else if (Array.isArray(known)) known.unshift(value);
    else parsed[key] = [value, known];
  }
  if (!parsed['content-type']) parsed['content-type'] = 'text/plain';
  for (const key of ['content-type', 'content-disposition'])
    if (parsed[key]) parsed[key] = parser.parseValueParams(([] as unknown[]).concat(parsed[key]).pop() as string);
  for (const key of parse.SINGLE_VALUED_FIELDS) {
    const value = parsed[key];
    if (Array.isArray(value)) parsed[key] = value.pop();
  }
  for (const key of addressFields) {
    const values = parsed[key];
    if (!values) continue;
    let addresses: ParsedAddress[] = [];
    for (const value of ([] as unknown[]).concat(values))
      if (value) addresses = addresses.concat(addressesOf(value as string));
    if (typeof values === 'string') sources.set(addresses, values);
    parsed[key] = addresses;
  }
  return parsed;
}
