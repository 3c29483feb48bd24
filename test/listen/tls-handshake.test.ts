import net from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { type Harness, startHarness } from '../support/bridge-harness';

/**
 * A client that opens the implicit-TLS IMAP port and never starts the handshake holds a
 * socket that is not a connection yet: it has a deadline, and it does not hold up close().
 */

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

const listen = { host: '127.0.0.1', imapPort: 0, smtpPort: 0, imapsPort: 0 };

async function silentClient(port: number): Promise<{ closed: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return { closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

const within = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work.then(() => 'done'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

test('closing the bridge does not wait for a client stuck before its TLS handshake', async () => {
  h = await startHarness({ config: { listen } });
  const client = await silentClient(h.bridge.ports.imaps ?? 0);
  expect(await within(20_000, h.bridge.close())).toBe('done');
  expect(await within(5_000, client.closed)).toBe('done');
});

test('a handshake that never starts is cut off after the socket timeout', async () => {
  h = await startHarness({ config: { listen, limits: { socketTimeoutSeconds: 1 } } });
  const client = await silentClient(h.bridge.ports.imaps ?? 0);
  expect(await within(20_000, client.closed)).toBe('done');
});
