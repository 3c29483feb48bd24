import type { Connector } from './connector';

/**
 * A connector whose writes wait for the state store's word first: a change the vendor makes
 * must be one this node can then store. `writable` rejects while the store is unreachable or
 * the mailbox is no longer this node's (store-errors.ts), and the write is then not sent, so a
 * client told NO knows nothing changed.
 */
export function storeCheckedWrites(vendor: Connector, writable: () => Promise<void>): Connector {
  const checked =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await writable();
      return write(...args);
    };
  return { ...vendor, setFlags: checked(vendor.setFlags), label: checked(vendor.label), move: checked(vendor.move) };
}
