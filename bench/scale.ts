import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../src/sandbox';
import { MailStore } from '../src/store/mail-store';

/**
 * Large-mailbox timings that used to sit in unit tests as wall-clock bounds: the sandbox building
 * a 100,000-message corpus and answering list_threads/get_messages over it, and the UID store
 * over 100,000 messages of one folder. Targets are reported beside the figures, never asserted.
 */

const alice = 'alice@sandbox.test';
const size = 100_000;

async function timed<T>(run: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await run();
  return { value, ms: Math.round(performance.now() - t0) };
}

async function sandboxCorpus(): Promise<Record<string, unknown>> {
  const start = await timed(() => startSandbox({ messages: size }));
  const sb = start.value;
  try {
    const authorization = sb.issueTokens(alice).accessToken;
    const post = async (commands: unknown[]) => {
      const res = await fetch(`${sb.urls.read}/v1`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ commands }),
      });
      return (await res.json()) as { results: Array<{ data: Record<string, unknown> }> };
    };
    const page = (cursor: string | null) => [
      { command: 'list_threads', args: { folder: 'INBOX', limit: 100, ...(cursor ? { cursor } : {}) } },
    ];
    const first = await timed(() => post(page(null))); // builds the folder order once
    const pages = await timed(async () => {
      const uids: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 10; i++) {
        const { data } = (await post(page(cursor))).results[0];
        uids.push(...(data.threads as Array<{ last_message_uid: string }>).map((t) => t.last_message_uid));
        cursor = data.next_cursor as string | null;
      }
      return uids;
    });
    const uids = pages.value;
    const batch = Array.from({ length: 20 }, (_, i) => ({
      command: 'get_messages',
      args: { ids: uids.slice(i * 50, i * 50 + 50) },
    }));
    const messages = await timed(() => post(batch));
    return {
      startMs: start.ms,
      startTargetMs: 5_000,
      firstListThreadsMs: first.ms,
      tenPagesAnd1000MessagesMs: pages.ms + messages.ms,
      tenPagesAnd1000MessagesTargetMs: 2_000,
    };
  } finally {
    await sb.close();
  }
}

async function uidStore(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-store-'));
  const account = 'bench@sandbox.test';
  try {
    const ids = Array.from({ length: size }, (_, i) => ({
      messageUid: `m${i}`,
      flags: i % 3 ? ['\\Seen'] : [],
      idate: new Date(1_700_000_000_000 + i),
    }));
    let store = MailStore.open(dir);
    const assign = await timed(() => store.assignUids(account, 'Big', ids));
    const reassign = await timed(() => store.assignUids(account, 'Big', ids));
    store.close();
    store = MailStore.open(dir);
    const list = await timed(() => store.listMessages(account, 'Big'));
    const warmList = await timed(() => store.listMessages(account, 'Big'));
    const state = await timed(() => store.folderState(account, 'Big'));
    const byUids = await timed(() =>
      store.getByUids(
        account,
        'Big',
        list.value.map((r) => r.uid),
      ),
    );
    store.close();
    return {
      assignUidsMs: assign.ms,
      reassignNoopMs: reassign.ms,
      listMessagesColdMs: list.ms,
      listMessagesCachedMs: warmList.ms,
      folderStateMs: state.ms,
      getByUidsAllMs: byUids.ms,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runScaleBench(): Promise<Record<string, unknown>> {
  return { messages: size, sandbox: await sandboxCorpus(), uidStore: await uidStore() };
}
