import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '../../src/config';
import type { StateStore } from '../../src/store';
import { openPgState } from '../../src/store/pg/pg-state';
import { parseStateKey } from '../../src/store/pg/secret-box';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * A node's name is its identity among the nodes: a second process under a running node's name
 * is refused (a configuration error: `mailbridge start` exits 2), while a node restarted after
 * a crash, whose old heartbeat is still running out, starts. The wait between the two looks at
 * the heartbeat is the test's: it lets the running node renew, or not.
 */

let postgres: Postgres;
let connection: { host: string; user: string; database: string };
const secretKey = Buffer.alloc(32, 21).toString('base64');
const leaseMs = 60_000;

beforeAll(async () => {
  postgres = await startPostgres();
  connection = await postgres.createDatabase('names');
}, 120_000);
afterAll(async () => {
  await postgres.stop();
});

async function open(name: string, wait: (ms: number) => Promise<void>): Promise<StateStore> {
  const state = await openPgState({
    connection,
    secretKey,
    node: { name, leaseMs, wait, onError: (err) => expect.unreachable(err.message) },
  });
  await state.ownership.start(() => ['kim@example.com'], { gained: () => undefined, lost: async () => undefined });
  return state;
}

const noWait = async () => undefined;

it('refuses to start under the name of a node that is running', async () => {
  const running = await open('twin', noWait);
  const waited: number[] = [];
  const twin = openPgState({
    connection,
    secretKey,
    node: {
      name: 'twin',
      leaseMs,
      onError: () => undefined,
      // meanwhile the running node renews its heartbeat, as it does every third of the lease
      wait: async (ms) => {
        waited.push(ms);
        await running.ownership.review();
      },
    },
  });
  const state = await twin;
  await expect(
    state.ownership.start(() => ['kim@example.com'], { gained: () => undefined, lost: async () => undefined }),
  ).rejects.toThrow(
    new ConfigError(
      'state.node "twin" is the name of another node that is running (its heartbeat in PostgreSQL moves on); give every node its own name',
    ),
  );
  expect(waited).toEqual([leaseMs / 2]);
  await state.close();
  await running.ownership.stop();
  await running.close();
});

it('starts under the name of a node that crashed, its heartbeat still running out', async () => {
  const crashed = await open('phoenix', noWait);
  // as a killed process: no more renewals, no goodbye
  await crashed.close();
  const again = await open('phoenix', noWait);
  await again.ownership.stop();
  await again.close();
});

it('takes a too-short state key for a configuration error', () => {
  expect(() => parseStateKey(Buffer.alloc(16).toString('base64'))).toThrow(ConfigError);
});
