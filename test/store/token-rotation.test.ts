import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log';
import { openPgState } from '../../src/store/pg/pg-state';
import { VendorError } from '../../src/upstream/errors';
import { TokenManager } from '../../src/upstream/token-manager';
import type { TokenPair } from '../../src/model/tokens';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * Two processes sharing the token records in PostgreSQL (a node and `mailbridge` CLI command):
 * one rotated the pair, the other then sees its access token expire. It must take the stored
 * pair, not spend the refresh token the vendor already killed (which would lock the mailbox out).
 */

const mailbox = 'alice@example.com';
const secretKey = Buffer.alloc(32, 23).toString('base64');
let postgres: Postgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres.stop();
});

/** The vendor's rule: a refresh token works once, and dies at once. */
function vendor() {
  let live = 'rt-0';
  let refreshes = 0;
  return {
    refreshes: () => refreshes,
    refresh: async (refreshToken: string): Promise<TokenPair> => {
      if (refreshToken !== live)
        throw new VendorError('REFRESH_TOKEN_USED', 'refresh token already used', 401, {}, 'auth');
      refreshes++;
      live = `rt-${refreshes}`;
      return { accessToken: `at-${refreshes}`, refreshToken: live };
    },
  };
}

it('takes a pair another process rotated instead of refreshing with the dead refresh token', async () => {
  const { url } = await postgres.createDatabase('rotation');
  const node = await openPgState({ connection: url, secretKey });
  await node.secrets.putTokens(mailbox, { accessToken: 'at-0', refreshToken: 'rt-0' });
  const cli = await openPgState({ connection: url, secretKey });
  const v = vendor();
  const logger = createLogger('silent');
  const elsewhere = new TokenManager(mailbox, cli.secrets, v.refresh, logger);
  expect(await elsewhere.refresh('at-0')).toBe('at-1');

  // the node still holds at-0 in memory when the vendor answers TOKEN_EXPIRED to it
  expect(node.secrets.get(mailbox)?.accessToken).toBe('at-0');
  const here = new TokenManager(mailbox, node.secrets, v.refresh, logger);
  expect(await here.refresh('at-0')).toBe('at-1');
  expect(v.refreshes()).toBe(1);
  expect(node.secrets.get(mailbox)?.needsNewTokens).toBeUndefined();
  await cli.close();
  await node.close();
});
