/**
 * A label view's key in the store and journal: a prefix no vendor folder name can start with,
 * so views and folders share one key space without colliding.
 */
const keyPrefix = '\u0001label:';

export function labelKey(label: string): string {
  return keyPrefix + label;
}

export function labelOfKey(key: string): string | null {
  return key.startsWith(keyPrefix) ? key.slice(keyPrefix.length) : null;
}
