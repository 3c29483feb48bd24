import { isDeepStrictEqual } from 'node:util';
import type { Config } from './config';

/**
 * What a reload changes. Accounts and these settings apply to the running daemon; any other
 * changed field is reported as needing a restart (listeners, state, vendor, TLS, folder
 * mapping: open sessions depend on them).
 */
const liveFields = new Set([
  'accounts',
  'pollIntervalSeconds',
  'fullSyncEveryPolls',
  'maxMessageBytes',
  'logLevel',
  'ops.staleAfterSeconds',
]);

function fields(config: Config): Record<string, unknown> {
  const { ops, configFile: _file, ...rest } = config;
  return { ...rest, 'ops.host': ops.host, 'ops.port': ops.port, 'ops.staleAfterSeconds': ops.staleAfterSeconds };
}

export interface ReloadPlan {
  applied: string[];
  needsRestart: string[];
}

export function planReload(running: Config, next: Config): ReloadPlan {
  const before = fields(running);
  const after = fields(next);
  const changed = Object.keys(after).filter((k) => !isDeepStrictEqual(before[k], after[k]));
  return {
    applied: changed.filter((k) => liveFields.has(k)),
    needsRestart: changed.filter((k) => !liveFields.has(k)),
  };
}
