import { LRUCache } from 'lru-cache';
import type { AccountView } from '../domain/account-view';

/**
 * Per-account caches of what is derived from a message's bytes (SORT and THREAD keys, the
 * decoded header fields SEARCH matches), keyed by the message: its bytes never change, so an
 * entry never goes stale, and commands on a large folder stop parsing every message's header
 * lines again. Each holds at most `max` messages (a folder of that size; a larger one computes
 * the rest again), or with `maxSize` entries up to that by their own `sizeCalculation` too,
 * and goes with its account's view.
 */
export function perAccountCache<T extends {}>(
  limit: number | { max: number; maxSize: number; sizeCalculation: (value: T) => number },
): (view: AccountView) => LRUCache<string, T> {
  const caches = new WeakMap<AccountView, LRUCache<string, T>>();
  return (view) => {
    let cache = caches.get(view);
    if (!cache) {
      cache = new LRUCache<string, T>(typeof limit === 'number' ? { max: limit } : limit);
      caches.set(view, cache);
    }
    return cache;
  };
}
