import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RunningBridge, startBridge } from '../../src/bridge';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { type Sandbox, startSandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import { preferredNode } from '../../src/store/pg/ownership';
import { mailbridge } from '../support/cli-process';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * The operator's CLI on two nodes sharing PostgreSQL, one of which serves every mailbox and one
 * none: `status --cluster` shows both nodes and who serves what, `status` and `reload` on the
 * idle node speak of what it serves, and the CLI's output and errors stay clean.
 */

const mailboxes = ['alice@sandbox.test', 'bob@sandbox.test'];
const secretKey = Buffer.alloc(32, 23).toString('base64');
const busy = 'busy';
// a name both mailboxes prefer less than the busy node's: this node serves none
const idle =
  Array.from({ length: 200 }, (_, i) => `idle-${i}`).find((n) =>
    mailboxes.every((m) => preferredNode([busy, n], m) === busy),
  ) ?? '';

let postgres: Postgres;
let sandbox: Sandbox;
let dir: string;
const nodes = new Map<string, { bridge: RunningBridge; config: string }>();

function writeConfig(name: string, url: string, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts: mailboxes.map((mailbox) => ({ mailbox })),
      listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
      ops: { port: null },
      stateDir: path.join(dir, name),
      pollIntervalSeconds: 3600,
      logLevel: 'silent',
      state: { postgres: url, secretKey, node: name, leaseSeconds: 30 },
      ...extra,
    }),
  );
  return file;
}

async function cli(...args: string[]): Promise<string> {
  const r = await mailbridge(args);
  if (r.code !== 0) throw new Error(`mailbridge ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  if (!idle) throw new Error('no node name both mailboxes prefer less');
  postgres = await startPostgres();
  const { url } = await postgres.createDatabase('clustercli');
  sandbox = await startSandbox({ messages: 5, mailboxes });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-cluster-cli-'));
  for (const name of [busy, idle]) {
    const config = writeConfig(name, url);
    const bridge = await startBridge(loadConfig(config), createLogger('silent'));
    nodes.set(name, { bridge, config });
    if (name === busy)
      for (const mailbox of mailboxes) await bridge.secrets.putTokens(mailbox, sandbox.issueTokens(mailbox));
    await bridge.reload();
  }
}, 120_000);

afterAll(async () => {
  for (const { bridge } of nodes.values()) await bridge.close();
  await sandbox?.close();
  await postgres?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const configOf = (name: string) => nodes.get(name)?.config ?? '';

test('status --cluster shows every node, its addresses, last heartbeat and the mailboxes it serves', async () => {
  const text = await cli('status', '--cluster', '--config', configOf(idle));
  const lines = text.trim().split('\n');
  const busyPort = nodes.get(busy)?.bridge.ports.imap;
  const idlePort = nodes.get(idle)?.bridge.ports.imap;
  expect(lines.find((l) => l.startsWith(`${busy} `))).toMatch(
    new RegExp(
      `^${busy}  alive  imap 127\\.0\\.0\\.1:${busyPort}  smtp 127\\.0\\.0\\.1:\\d+  last heartbeat [\\d.]+ s ago  serves 2: alice@sandbox\\.test, bob@sandbox\\.test$`,
    ),
  );
  expect(lines.find((l) => l.startsWith(`${idle} `))).toMatch(
    new RegExp(`^${idle}  alive  imap 127\\.0\\.0\\.1:${idlePort} .* serves none$`),
  );
  const json = JSON.parse(await cli('status', '--cluster', '--json', '--config', configOf(busy)));
  expect(json.nodes.map((n: { node: string }) => n.node).sort()).toEqual([busy, idle].sort());
  expect(json.unserved).toEqual([]);
});

test('status on a live node that serves no mailbox says so, not that no account is bridged', async () => {
  const text = await cli('status', '--config', configOf(idle));
  expect(text).not.toMatch(/No accounts are bridged/);
  expect(text.trim()).toBe(
    `Node ${idle} serves no mailbox right now; "mailbridge status --cluster" shows every node and what it serves.`,
  );
  const json = JSON.parse(await cli('status', '--json', '--config', configOf(idle)));
  expect(json).toEqual({ node: idle, accounts: [] });
});

test('reload on a node names only the mailboxes it serves', async () => {
  const result = await cli('reload', '--config', configOf(idle));
  expect(result).not.toMatch(/alice|bob/);
});
