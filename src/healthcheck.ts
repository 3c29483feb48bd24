import net from 'node:net';

/** True when an IMAP greeting ("* OK") arrives from host:port within `timeoutMs`. */
export function imapAnswers(host: string, port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('data', (d) => done(d.toString('latin1').startsWith('* OK')));
    socket.once('error', () => done(false));
  });
}
