import os from 'node:os';
import type { Config } from '../config';
import type { Logger } from '../log';
import { openPgState } from './pg/pg-state';
import { openSqliteState } from './sqlite-state';
import type { StateStore } from './state-store';

/**
 * The configured backend: PostgreSQL when `state.postgres` is set, the SQLite file otherwise.
 * A daemon opens it as a node (on PostgreSQL it then serves the accounts it owns); the CLI
 * opens every account, owning none.
 */
export function openStateStore(
  config: Config,
  role: { node: Logger; leaseClock?: () => number } | 'cli',
): Promise<StateStore> {
  const { postgres, secretKey, node, leaseSeconds } = config.state;
  if (!postgres || !secretKey) return Promise.resolve(openSqliteState(config.stateDir));
  if (role === 'cli') return openPgState({ connection: postgres, secretKey });
  const logger = role.node;
  return openPgState({
    connection: postgres,
    secretKey,
    node: {
      name: node ?? `${os.hostname()}-${process.pid}`,
      leaseMs: leaseSeconds * 1000,
      now: role.leaseClock,
      onError: (err) => logger.warn({ err: err.message }, 'account ownership: PostgreSQL look failed; retrying'),
      observer: {
        lease: (mailbox, change) => logger.info({ mailbox, change }, `lease ${change}`),
        store: (up, err) =>
          up
            ? logger.warn('PostgreSQL answers again')
            : logger.warn({ err: err?.message }, 'PostgreSQL lost: serving no mailbox whose lease runs out meanwhile'),
      },
    },
  });
}
