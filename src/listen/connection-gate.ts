import type { Limits } from '../config';

/**
 * Counts the open connections of one protocol (all its listeners together) and refuses
 * those past the total or per-address cap, before any byte of theirs is read.
 */
export class ConnectionGate {
  private readonly open = new Map<string, string>();
  private readonly perPeer = new Map<string, number>();

  constructor(private readonly limits: Pick<Limits, 'maxConnections' | 'maxConnectionsPerPeer'>) {}

  /** Records the connection (once per id) and returns true, or returns false if a cap is reached. */
  admit(id: string, peer: string): boolean {
    if (this.open.has(id)) return true;
    const fromPeer = this.perPeer.get(peer) ?? 0;
    if (this.open.size >= this.limits.maxConnections || fromPeer >= this.limits.maxConnectionsPerPeer) return false;
    this.open.set(id, peer);
    this.perPeer.set(peer, fromPeer + 1);
    return true;
  }

  /**
   * Counts an admitted connection under `peer` from now on (a node vouched that it carries a
   * session of that address); false, leaving it as it was, if that address is at its cap.
   */
  reattribute(id: string, peer: string): boolean {
    const was = this.open.get(id);
    if (was === undefined) return false;
    if (was === peer) return true;
    if ((this.perPeer.get(peer) ?? 0) >= this.limits.maxConnectionsPerPeer) return false;
    this.release(id);
    this.open.set(id, peer);
    this.perPeer.set(peer, (this.perPeer.get(peer) ?? 0) + 1);
    return true;
  }

  /** Forgets an admitted connection; refused or unknown ids are ignored. */
  release(id: string): void {
    const peer = this.open.get(id);
    if (peer === undefined) return;
    this.open.delete(id);
    const left = (this.perPeer.get(peer) ?? 1) - 1;
    if (left > 0) this.perPeer.set(peer, left);
    else this.perPeer.delete(peer);
  }
}

export const tooManyConnections = 'Too many connections';
