import { afterEach, expect, test, vi } from 'vitest';

/**
 * imap-core's command-line parser (changed in packages/imap-core, see its README.md): a line that arrives in
 * many chunks is read in time proportional to its length, not searched again from its start
 * with every chunk, and a CRLF split between chunks still ends the line.
 */

interface ParsedCommand {
  value: string;
}

const { IMAPStream } = require('@mailbridge/imap-core/lib/imap-stream.js') as {
  IMAPStream: new (options?: {
    maxLineLength?: number;
  }) => {
    oncommand(command: ParsedCommand, callback?: () => void): void;
    write(chunk: Buffer, callback: () => void): void;
  };
};

afterEach(() => {
  vi.restoreAllMocks();
});

function parser() {
  // no line limit (0): the stream's default of 8 KB would refuse the long line measured here
  const stream = new IMAPStream({ maxLineLength: 0 });
  const lines: string[] = [];
  stream.oncommand = (command, callback) => {
    lines.push(command.value);
    callback?.();
  };
  const feed = async (...chunks: string[]) => {
    for (const c of chunks) await new Promise<void>((resolve) => stream.write(Buffer.from(c, 'latin1'), resolve));
  };
  return { lines, feed };
}

test('a 1 MB line in 1 KB chunks is searched for its end about once, not once per chunk', async () => {
  const { lines, feed } = parser();
  let scanned = 0;
  const exec = RegExp.prototype.exec;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, input: string) {
    if (this.source === '\\r?\\n') scanned += input.length - this.lastIndex;
    return exec.call(this, input);
  });
  const chunk = 'x'.repeat(1024);
  const size = 1024 * chunk.length;
  await feed(...Array.from({ length: 1024 }, () => chunk), '\r\n');
  expect(lines).toEqual([chunk.repeat(1024)]);
  // rescanning the buffered line with every chunk would be about size * 512 characters
  expect(scanned).toBeLessThan(2 * size);
});

test('a CRLF split between chunks, and several commands in one chunk, are read as before', async () => {
  const { lines, feed } = parser();
  await feed('a NO', 'OP\r', '\nb NOOP\r\nc CAP', 'ABILITY\r\n');
  expect(lines).toEqual(['a NOOP', 'b NOOP', 'c CAPABILITY']);
});
