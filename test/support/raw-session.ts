import { wire } from './wire';

/** A raw IMAP session for byte-exact assertions: each command's whole answer as text. */
export interface RawSession {
  /** A string goes as UTF-8; bytes exactly as given (malformed input). */
  run(command: string | Buffer): Promise<string>;
  /** APPEND with a synchronizing literal: the message goes after the server's continuation. */
  append(folder: string, message: string, flags?: string): Promise<string>;
  close(): void;
}

export async function rawSession(port: number, user: string, password: string): Promise<RawSession> {
  const w = await wire(port);
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
  await run(`LOGIN "${user}" "${password}"`);
  return { run, append, close: w.close };
}
