import net from 'node:net';

/** A raw IMAP session for byte-exact assertions: each command's whole answer as text. */
export interface RawSession {
  run(command: string): Promise<string>;
  /** APPEND with a synchronizing literal: the message goes after the server's continuation. */
  append(folder: string, message: string, flags?: string): Promise<string>;
  /** Writes bytes as they are and collects the output until `done` matches. */
  exchange(bytes: string, done: RegExp): Promise<string>;
  /** Everything the server sent so far, greeting included. */
  transcript(): string;
  close(): void;
}

/** A session logged in as `user`, or a fresh one in the not authenticated state without `password`. */
export async function rawSession(port: number, user: string, password?: string): Promise<RawSession> {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let all = '';
  let wake: (() => void) | null = null;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    all += chunk;
    wake?.();
  });
  const until = async (done: RegExp): Promise<string> => {
    while (!done.test(buffer)) await new Promise<void>((r) => (wake = r));
    const out = buffer;
    buffer = '';
    return out;
  };
  await until(/^\* OK.*\r\n/m);
  let n = 0;
  const tagged = (tag: string) => new RegExp(`^${tag} (OK|NO|BAD).*\\r\\n`, 'm');
  const run = async (command: string) => {
    const tag = `t${++n}`;
    socket.write(`${tag} ${command}\r\n`);
    return until(tagged(tag));
  };
  const append = async (folder: string, message: string, flags = '(\\Draft)') => {
    const tag = `t${++n}`;
    socket.write(`${tag} APPEND ${folder} ${flags} {${Buffer.byteLength(message)}}\r\n`);
    await until(/^\+ .*\r\n/m);
    socket.write(`${message}\r\n`);
    return until(tagged(tag));
  };
  const exchange = async (bytes: string, done: RegExp) => {
    socket.write(bytes, 'latin1');
    return until(done);
  };
  if (password !== undefined) await run(`LOGIN "${user}" "${password}"`);
  return { run, append, exchange, transcript: () => all, close: () => socket.destroy() };
}
