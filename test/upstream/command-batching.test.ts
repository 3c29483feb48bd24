import { describe, expect, test } from 'vitest';
import { CommandBatcher, type SendRequest } from '../../src/upstream/command-batching';
import type { Command } from '../../src/upstream/types';

/** Turns of the event loop (setImmediate), enough for anything queued by now to have run. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('CommandBatcher', () => {
  test("a shared answer: reads its first caller issues in answer leave before the other callers' results are handled", async () => {
    const log: string[] = [];
    const request: SendRequest = (commands) => {
      log.push(`sent ${commands.map((c) => c.command).join(' + ')}`);
      return Promise.resolve(commands.map((c, i) => ({ command: c.command, id: String(i), type: 'ok', data: {} })));
    };
    const batcher = new CommandBatcher(request, () => false);
    const listPage: Command = { command: 'list_threads', args: {} };
    const fetch: Command = { command: 'get_messages', args: {} };
    // a sync: the next list page needs this one's cursor; the fetched messages are only processed
    const listed = batcher.run([listPage], 'sync').then(() => {
      log.push('page read');
      void batcher.run([listPage], 'sync');
    });
    const fetched = batcher.run([fetch], 'sync').then(() => log.push('messages processed'));
    await Promise.all([listed, fetched]);
    await turns(3);
    expect(log).toEqual(['sent list_threads + get_messages', 'page read', 'sent list_threads', 'messages processed']);
  });

  test('each caller still gets its own results, and a failed request fails every caller it carried', async () => {
    let calls = 0;
    const request: SendRequest = (commands) =>
      ++calls === 1
        ? Promise.resolve(
            commands.map((c, i) => ({ command: c.command, id: String(i), type: 'ok', data: { for: c.command } })),
          )
        : Promise.reject(new Error('vendor down'));
    const batcher = new CommandBatcher(request, () => false);
    const a = batcher.run([{ command: 'list_threads', args: {} }], 'sync');
    const b = batcher.run([{ command: 'get_messages', args: {} }], 'content');
    expect((await b)[0].data).toEqual({ for: 'get_messages' });
    expect((await a)[0].data).toEqual({ for: 'list_threads' });
    const c = batcher.run([{ command: 'list_threads', args: {} }], 'sync');
    const d = batcher.run([{ command: 'get_messages', args: {} }], 'sync');
    await expect(c).rejects.toThrow('vendor down');
    await expect(d).rejects.toThrow('vendor down');
  });
});
