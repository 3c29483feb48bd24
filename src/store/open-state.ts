import type { Config } from '../config';
import { openPgState } from './pg/pg-state';
import { openSqliteState } from './sqlite-state';
import type { StateStore } from './state-store';

/** The configured backend: PostgreSQL when `state.postgres` is set, the SQLite file otherwise. */
export function openStateStore(config: Config): Promise<StateStore> {
  const { postgres, secretKey } = config.state;
  if (postgres && secretKey) return openPgState({ connection: postgres, secretKey });
  return Promise.resolve(openSqliteState(config.stateDir));
}
