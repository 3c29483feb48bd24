import net from 'node:net';

/** Binds `port` on `host` once and lets go: the port it got, or null when the port is taken or forbidden. */
function tryBind(port: number, host: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(null) : reject(err),
    );
    server.listen({ port, host, exclusive: true }, () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * `port` if nothing listens there, else a free port the system picks. Another program may
 * take the port between this check and the listener's bind; the listener's own error then
 * names the setting.
 */
export async function portOrFree(port: number, host: string): Promise<number> {
  return (await tryBind(port, host)) ?? ((await tryBind(0, host)) as number);
}
