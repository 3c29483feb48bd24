import { wire } from './wire';

/** A raw IMAP session for byte-exact assertions: each command's whole answer as text. */
export interface RawSession {
  /** A string goes as UTF-8; bytes exactly as given (malformed input). */
  run(command: string | Buffer): Promise<string>;
  /** APPEND with a synchronizing literal: the message goes after the server's continuation. */
  append(folder: string, message: string, flags?: string): Promise<string>;
  /** Writes bytes as they are and collects the output until `done` matches. */
  exchange(bytes: string, done: RegExp): Promise<string>;
  /** Everything the server sent so far, greeting included. */
  transcript(): string;
  /** Sends a line as is (e.g. "t IDLE", "DONE"). */
  send(line: string): void;
  /** Everything the server sent until `pattern` matches it. */
  waitFor(pattern: RegExp): Promise<string>;
  close(): void;
}

/** A session logged in as `user`, or a fresh one in the not authenticated state without `password`. */
export async function rawSession(port: number, user: string, password?: string): Promise<RawSession> {
  const w = await wire(port);
  let all = '';
  w.socket.on('data', (chunk: string) => {
    all += chunk;
  });
  await w.until(/^\* OK.*\r\n/m);
  let n = 0;
  const tagged = (tag: string) => new RegExp(`^${tag} (OK|NO|BAD).*\\r\\n`, 'm');
  const run = async (command: string | Buffer) => {
    const tag = `t${++n}`;
    await w.write(Buffer.concat([Buffer.from(`${tag} `), Buffer.from(command), Buffer.from('\r\n')]));
    return w.until(tagged(tag), 60_000);
  };
  const append = async (folder: string, message: string, flags = '(\\Draft)') => {
    const tag = `t${++n}`;
    await w.write(`${tag} APPEND ${folder} ${flags} {${Buffer.byteLength(message)}}\r\n`);
    await w.until(/^\+ .*\r\n/m);
    await w.write(`${message}\r\n`);
    return w.until(tagged(tag), 60_000);
  };
  const exchange = async (bytes: string, done: RegExp) => {
    await w.write(Buffer.from(bytes, 'latin1'));
    return w.until(done, 60_000);
  };
  if (password !== undefined) await run(`LOGIN "${user}" "${password}"`);
  return {
    run,
    append,
    exchange,
    transcript: () => all,
    send: (line) => void w.write(`${line}\r\n`),
    waitFor: (pattern) => w.until(pattern, 60_000),
    close: w.close,
  };
}
