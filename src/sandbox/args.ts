import type { Recipient } from '../upstream/types';

/** Argument validation for commands and JSON routes; failures carry the field at fault. */
export class ArgError extends Error {}

type Args = Record<string, unknown>;

export function optString(args: Args, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ArgError(`${key} must be a string`);
  return v;
}

export function reqString(args: Args, key: string): string {
  const v = optString(args, key);
  if (v === undefined || v === '') throw new ArgError(`${key} is required`);
  return v;
}

export function optBool(args: Args, key: string): boolean | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ArgError(`${key} must be a boolean`);
  return v;
}

export function optInt(args: Args, key: string, min: number, max: number): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new ArgError(`${key} must be an integer from ${min} to ${max}`);
  return v;
}

export function optStrings(args: Args, key: string, max = Infinity): string[] | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && s !== ''))
    throw new ArgError(`${key} must be an array of non-empty strings`);
  if (v.length > max) throw new ArgError(`${key} takes at most ${max} entries`);
  return v as string[];
}

const emailPattern = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export function isEmail(s: string): boolean {
  return emailPattern.test(s);
}

/** [{email, name?}] as used by the send command (A8). */
export function optRecipients(args: Args, key: string): Recipient[] | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new ArgError(`${key} must be an array of {email, name?}`);
  return v.map((r) => {
    if (typeof r !== 'object' || r === null || typeof r.email !== 'string' || !isEmail(r.email))
      throw new ArgError(`${key} entries need a valid email`);
    if (r.name !== undefined && typeof r.name !== 'string') throw new ArgError(`${key} names must be strings`);
    return r.name === undefined ? { email: r.email } : { email: r.email, name: r.name };
  });
}

/** "Name <a@b>" or "a@b" (comma separated lists allowed) as used by the send route and inject. */
export function parseAddressList(value: string): Recipient[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^(.*)<([^>]+)>$/.exec(part);
      const email = (m ? m[2] : part).trim();
      if (!isEmail(email)) throw new ArgError(`invalid address: ${part}`);
      const name = m ? m[1].trim().replace(/^"|"$/g, '') : '';
      return name ? { email, name } : { email };
    });
}
