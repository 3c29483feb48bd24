import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../log';
import { isLoopback } from '../util/net';
import { greetingNonce, hopResponse } from './node-hop';

/** What a node needs to reach another: the certificate the nodes share and the hop key. */
export interface NodeHop {
  certificate: string;
  key: Buffer;
}

/**
 * The thin IMAP proxy of a node that does not serve the mailbox (as Dovecot's director does):
 * once the client's LOGIN or AUTHENTICATE checked out here, this node authenticates to the
 * owner node as a node of the cluster on the client's behalf (node-hop.ts: the owner then
 * counts and logs the session under the client's address, not this node's), answers the
 * client's command with the owner's answer (its tag put back), and from then on copies bytes
 * both ways until either side closes. To an owner that is not on this machine the hop runs
 * STARTTLS, trusting only the certificate the nodes share.
 */

export interface ProxyTarget {
  /** host:port of the owner's IMAP listener. */
  address: string;
  mailbox: string;
  /** The client's address, which the owner's limits and logs go by. */
  client: string;
}

/** Reads CRLF-terminated lines until `done` says the last one ends the exchange. */
function readLines(socket: net.Socket, done: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const lines: string[] = [];
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('binary');
      let end = buffer.indexOf('\r\n');
      while (end >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        lines.push(line);
        if (done(line)) {
          cleanup();
          if (buffer) socket.unshift(Buffer.from(buffer, 'binary'));
          return resolve(lines);
        }
        end = buffer.indexOf('\r\n');
      }
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('the owner node closed the connection'));
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', onEnd);
      socket.off('close', onEnd);
    };
    socket.on('data', onData);
    socket.once('error', onEnd);
    socket.once('close', onEnd);
  });
}

function connect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Logs in to the owner; resolves with the socket and the owner's answer lines (the tagged one last). */
export async function loginToOwner(
  target: ProxyTarget,
  hop: NodeHop,
): Promise<{ socket: net.Socket; answer: string[] }> {
  const i = target.address.lastIndexOf(':');
  const host = target.address.slice(0, i).replace(/^\[|\]$/g, '');
  let socket: net.Socket = await connect(host, Number(target.address.slice(i + 1)));
  const greeting = await readLines(socket, (line) => line.startsWith('* '));
  if (!isLoopback(host)) {
    socket.write('P0 STARTTLS\r\n');
    await readLines(socket, (line) => line.startsWith('P0 '));
    socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const secure = tls.connect(
        { socket, ca: hop.certificate, servername: host, checkServerIdentity: () => undefined },
        () => resolve(secure),
      );
      secure.once('error', reject);
    });
  }
  const nonce = greetingNonce(greeting[greeting.length - 1]);
  socket.write(`P1 AUTHENTICATE PLAIN ${hopResponse(hop.key, nonce, target.mailbox, target.client)}\r\n`);
  const answer = await readLines(socket, (line) => line.startsWith('P1 '));
  return { socket, answer };
}

/**
 * Serves the client's session through the owner; `tag` is the client's LOGIN/AUTHENTICATE tag,
 * `unread` what it sent after that command (pipelined), which goes to the owner first.
 */
export function proxyToOwner(
  client: net.Socket,
  tag: string,
  unread: Buffer,
  target: ProxyTarget,
  hop: NodeHop,
  logger: Logger,
): void {
  loginToOwner(target, hop).then(
    ({ socket, answer }) => {
      const last = answer[answer.length - 1];
      for (const line of answer.slice(0, -1)) client.write(`${line}\r\n`, 'binary');
      client.write(`${tag}${last.slice(2)}\r\n`, 'binary');
      if (!/^P1 OK/i.test(last)) {
        socket.destroy();
        client.end();
        return;
      }
      const about = { account: target.mailbox, client: target.client, owner: target.address };
      logger.info(about, 'imap session forwarded to the owner node');
      socket.write(unread);
      client.pipe(socket);
      socket.pipe(client);
      let open = true;
      const close = () => {
        if (open) logger.info(about, 'forwarded imap session closed');
        open = false;
        client.destroy();
        socket.destroy();
      };
      for (const s of [client, socket]) {
        s.once('close', close);
        s.once('error', close);
      }
    },
    (err: Error) => {
      logger.warn({ account: target.mailbox, owner: target.address, err: err.message }, 'owner node unreachable');
      client.end(`${tag} NO [UNAVAILABLE] The node serving this mailbox did not answer; try again\r\n`);
    },
  );
}
