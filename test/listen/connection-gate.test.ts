import { expect, test } from 'vitest';
import { ConnectionGate } from '../../src/listen/connection-gate';

test('total and per-peer caps; a second admit of one id counts once; release frees the slot', () => {
  const gate = new ConnectionGate({ maxConnections: 3, maxConnectionsPerPeer: 2 });
  expect([gate.admit('a', 'p'), gate.admit('a', 'p'), gate.admit('b', 'p'), gate.admit('c', 'p')]).toEqual([
    true,
    true,
    true,
    false,
  ]);
  expect([gate.admit('d', 'q'), gate.admit('e', 'r')]).toEqual([true, false]);
  gate.release('c'); // never admitted: nothing changes
  expect(gate.admit('e', 'r')).toBe(false);
  gate.release('a');
  expect([gate.admit('e', 'r'), gate.admit('f', 'p')]).toEqual([true, false]);
});
