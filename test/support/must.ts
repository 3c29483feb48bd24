/** The value an imapflow call answers when it worked (they answer `false` otherwise), or a test failure naming it. */
export function must<T>(value: T | false | null | undefined, what: string): T {
  if (value === false || value === null || value === undefined)
    throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}
