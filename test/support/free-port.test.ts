import fs from 'node:fs';
import net from 'node:net';
import { expect, test } from 'vitest';
import { freePort } from './free-port';

test('ports for child processes come from below the ephemeral range, distinct, skipping one in use', async () => {
  const ephemeral = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
  const first = await freePort();
  const held = net.createServer();
  await new Promise<void>((resolve) => held.listen(first + 1, '127.0.0.1', resolve));
  try {
    const second = await freePort();
    const third = await freePort();
    for (const port of [first, second, third]) expect(port).toBeLessThan(ephemeral);
    expect(second).toBe(first + 2);
    expect(third).toBe(first + 3);
  } finally {
    held.close();
  }
});
