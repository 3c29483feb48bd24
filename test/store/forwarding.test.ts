import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningBridge, startBridge } from '../../src/bridge';
import { parseConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { type Sandbox, startSandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import { preferredNode } from '../../src/store/pg/ownership';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * A session forwarded from one node to the owner of its mailbox, as the client and the operator
 * see it: the client hears its own login answered, and both nodes log the session with the
 * mailbox and the client's address; the forwarding node does not log it closed while it lives.
 */

const mailbox = 'alice@sandbox.test';
const secretKey = Buffer.alloc(32, 27).toString('base64');
const owner = 'owner';
const edge = Array.from({ length: 100 }, (_, i) => `edge-${i}`).find(
  (n) => preferredNode([owner, n], mailbox) === owner,
);
const clientAddress = '127.0.0.5';

let postgres: Postgres;
let sandbox: Sandbox;
let password = '';
const nodes = new Map<string, { bridge: RunningBridge; stateDir: string; logs: Array<Record<string, unknown>> }>();

async function startNode(name: string, url: string) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailbridge-${name}-`));
  const logs: Array<Record<string, unknown>> = [];
  const config = parseConfig({
    vendor: vendorSettings(sandbox),
    accounts: [{ mailbox }],
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    pollIntervalSeconds: 3600,
    ops: { port: null },
    state: { postgres: url, secretKey, node: name, leaseSeconds: 30 },
  });
  const logger = createLogger('info', { write: (line: string) => logs.push(JSON.parse(line)) });
  const bridge = await startBridge(config, logger);
  nodes.set(name, { bridge, stateDir, logs });
  return bridge;
}

const logsOf = (name: string) => nodes.get(name)?.logs ?? [];

beforeAll(async () => {
  if (!edge) throw new Error('no node name the mailbox prefers less');
  postgres = await startPostgres();
  const { url } = await postgres.createDatabase('forwarding');
  sandbox = await startSandbox({ messages: 5, mailboxes: [mailbox] });
  const first = await startNode(owner, url);
  await first.secrets.putTokens(mailbox, sandbox.issueTokens(mailbox));
  password = await first.secrets.setBridgePassword(mailbox);
  await first.reload();
  await startNode(edge, url);
}, 120_000);

afterAll(async () => {
  for (const { bridge, stateDir } of nodes.values()) {
    await bridge.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  await sandbox?.close();
  await postgres?.stop();
});

it('answers the client’s own login, and logs the session with the mailbox and client on both nodes', async () => {
  const via = nodes.get(edge ?? '')?.bridge;
  if (!via) throw new Error('no edge node');
  expect(nodes.get(owner)?.bridge.accounts.get(mailbox)).toBeTruthy();
  const socket = net.connect({ port: via.ports.imap, host: '127.0.0.1', localAddress: clientAddress });
  let text = '';
  socket.on('data', (d) => {
    text += d.toString();
  });
  const until = async (re: RegExp) => {
    for (let i = 0; i < 2000 && !re.test(text); i++) await new Promise((r) => setTimeout(r, 5));
    return new RegExp(`(?:^|\r\n)(${re.source.replace(/^\\r\\n/, '')}[^\r]*)`).exec(text)?.[1] ?? text;
  };
  await until(/\r\n/);
  socket.write(`l LOGIN ${mailbox} ${password}\r\n`);
  const login = await until(/\r\nl (OK|NO|BAD)/);
  expect(login).toMatch(new RegExp(`^l OK .*\\b${mailbox} authenticated$`));
  expect(login).not.toMatch(/mailbridge-node/);
  socket.write('n NOOP\r\n');
  expect(await until(/\r\nn (OK|NO|BAD)/)).toMatch(/^n OK/);

  const forwarded = { account: mailbox, client: clientAddress };
  expect(logsOf(edge ?? '')).toContainEqual(
    expect.objectContaining({ ...forwarded, msg: 'imap session forwarded to the owner node' }),
  );
  expect(logsOf(owner)).toContainEqual(expect.objectContaining({ ...forwarded, msg: 'imap session forwarded here' }));
  // the session lives: the forwarding node has not logged it closed
  expect(logsOf(edge ?? '').filter((l) => /Connection closed|session closed/.test(String(l.msg)))).toEqual([]);

  socket.write('o LOGOUT\r\n');
  await new Promise((resolve) => socket.once('close', resolve));
  for (let i = 0; i < 200 && !logsOf(edge ?? '').some((l) => l.msg === 'forwarded imap session closed'); i++)
    await new Promise((r) => setTimeout(r, 5));
  expect(logsOf(edge ?? '')).toContainEqual(
    expect.objectContaining({ ...forwarded, msg: 'forwarded imap session closed' }),
  );
});
