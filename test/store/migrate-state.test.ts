import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/bridge-harness';
import { mailbridge } from '../support/cli-process';
import { type Postgres, startPostgres } from '../support/postgres';

/** A node's SQLite state moved into PostgreSQL with `mailbridge migrate-state`: clients see no change. */

let postgres: Postgres;
let h: Harness;
let url: string;
const secretKey = Buffer.alloc(32, 11).toString('base64');

beforeAll(async () => {
  postgres = await startPostgres();
  const db = await postgres.createDatabase('migrated');
  url = db.url;
  h = await startHarness({ sandbox: { messages: 8 } });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await postgres?.stop();
});

it('copies every UID, UIDVALIDITY, flag and the tokens; a second run refuses to overwrite', async () => {
  let client = await h.client();
  for (const folder of ['INBOX', 'Archive']) await client.mailboxOpen(folder);
  await client.mailboxOpen('INBOX');
  await client.messageFlagsAdd('3', ['$Migrated'], { uid: true });
  const snapshot = async () => {
    const out: Record<string, unknown> = {};
    for (const folder of ['INBOX', 'Archive']) {
      const box = await client.mailboxOpen(folder);
      const messages = await client.fetchAll('1:*', { uid: true, flags: true });
      out[folder] = {
        uidValidity: box.uidValidity,
        uidNext: box.uidNext,
        messages: messages.map((m) => [m.uid, [...(m.flags ?? [])].filter((f) => f !== '\\Recent').sort()]),
      };
    }
    return out;
  };
  const before = await snapshot();
  await client.logout();

  const configFile = path.join(h.stateDir, 'migrate.json');
  const { configFile: _none, ...config } = h.config;
  fs.writeFileSync(
    configFile,
    JSON.stringify({ ...config, assumptions: {}, state: { postgres: url, secretKey, node: null, leaseSeconds: 10 } }),
  );
  await h.bridge.close();
  const migrated = await mailbridge(['migrate-state', '--config', configFile]);
  expect(migrated.stderr).toBe('');
  expect(migrated.stdout).toMatch(/^Copied 1 account\(s\): \d+ folder\(s\), \d+ message UID\(s\), 1 token record\(s\)/);
  expect(migrated.code).toBe(0);
  const again = await mailbridge(['migrate-state', '--config', configFile]);
  expect(again.code).not.toBe(0);
  expect(again.stderr).toContain('PostgreSQL already holds state of alice@sandbox.test; nothing was copied');

  // the nodes start on PostgreSQL with nothing in their state directory
  const emptyStateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-migrated-'));
  await h.restart({ state: { postgres: url, secretKey }, stateDir: emptyStateDir });
  client = await h.client();
  expect(await snapshot()).toEqual(before);
  await client.logout();
  fs.rmSync(emptyStateDir, { recursive: true, force: true });
});
