/**
 * Values remembered by key while describing messages (written header fields, parsed
 * addresses, part headers, ...), at most `limit` of them: a full memo starts over.
 *
 * One class for every such table, so the starting over is one piece of code: V8 compiles a
 * function for the paths it has seen taken, and the first table to fill in a sync teaches it
 * this one for all of them. Written once per table, each table's first fill sent the
 * functions that inline it back to the compiler, in every new describe worker.
 */
export class Memo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.values.get(key);
  }

  /** Remembers `value` for `key` and returns it. */
  set(key: K, value: V): V {
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, value);
    return value;
  }
}
