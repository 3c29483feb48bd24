import net from 'node:net';

/** A raw IMAP session for byte-exact assertions: each command's whole answer as text. */
export interface RawSession {
  run(command: string): Promise<string>;
  /** APPEND with a synchronizing literal: the message goes after the server's continuation. */
  append(folder: string, message: string, flags?: string): Promise<string>;
  /** Sends a line as is (e.g. "t IDLE", "DONE"). */
  send(line: string): void;
  /** Everything the server sent until `pattern` matches it. */
  waitFor(pattern: RegExp): Promise<string>;
  close(): void;
}

export async function rawSession(port: number, user: string, password: string): Promise<RawSession> {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let wake: (() => void) | null = null;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
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
  await run(`LOGIN "${user}" "${password}"`);
  return { run, append, send: (line) => socket.write(`${line}\r\n`), waitFor: until, close: () => socket.destroy() };
}
