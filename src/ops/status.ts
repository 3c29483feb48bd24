import type { AccountView } from '../domain/account-view';
import type { QuarantineRecord } from '../model/quarantine-record';
import type { AccountActivity } from './activity';
import type { TokenState } from './token-state';
import { accountId } from '../model/account-id';

/** `mailbridge status`: what the running daemon knows of each account, as JSON and as text. */

export interface FolderReport {
  folder: string;
  /** Messages the bridge holds for it (null when it never synced since start). */
  messages: number | null;
  lastSyncAt: string | null;
  lastPollAt: string | null;
  error: string | null;
  syncing: boolean;
}

export interface AccountReport {
  mailbox: string;
  token: { condition: string; accessExpiresAt: string | null; refreshExpiresAt: string | null; problem: string | null };
  vendor: { lastSuccessAt: string | null; lastError: string | null };
  pending: { queuedRequests: number; runningSyncs: number };
  folders: FolderReport[];
  quarantine: Array<{ id: string; recipient: string; subject: string; state: string; expiresAt: string }>;
}

export interface StatusReport {
  /** The node's name when several nodes share PostgreSQL (each serves its share), else null. */
  node: string | null;
  accounts: AccountReport[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface StatusDeps {
  views(): AccountView[];
  activity: AccountActivity;
  token(mailbox: string): TokenState;
  quarantine(): QuarantineRecord[];
  node: string | null;
}

export function buildStatus(deps: StatusDeps): StatusReport {
  const now = deps.activity.now();
  const records = deps.quarantine();
  return {
    node: deps.node,
    accounts: deps.views().map((view) => {
      const mailbox = view.account;
      const activity = deps.activity.of(mailbox);
      const open = new Map(view.activeFolders().map((f) => [f.path, f]));
      const token = deps.token(mailbox);
      const folders = [...activity.folders].map(([path, f]): FolderReport => {
        const folder = open.get(path);
        return {
          folder: path,
          messages: folder ? view.localStatus(folder).messages : null,
          lastSyncAt: iso(f.lastSyncAt),
          lastPollAt: iso(f.lastPollAt),
          error: f.lastError,
          syncing: f.runningSince !== null,
        };
      });
      return {
        mailbox,
        token: {
          condition: token.condition,
          accessExpiresAt: iso(token.accessExpiresAt),
          refreshExpiresAt: iso(token.refreshExpiresAt),
          problem: token.problem,
        },
        vendor: { lastSuccessAt: iso(activity.lastVendorSuccessAt), lastError: activity.lastVendorError },
        pending: { queuedRequests: activity.queued, runningSyncs: folders.filter((f) => f.syncing).length },
        folders,
        quarantine: records
          .filter((r) => r.account === accountId(mailbox))
          .map((r) => ({
            id: r.quarantineId,
            recipient: r.recipient,
            subject: r.subject,
            state: r.status === 'held' && r.expiresAt.getTime() <= now ? 'expired' : r.status,
            expiresAt: r.expiresAt.toISOString(),
          })),
      };
    }),
  };
}

export function formatStatus(report: StatusReport): string[] {
  const cluster = '"mailbridge status --cluster" shows every node and what it serves';
  if (!report.accounts.length)
    return [report.node ? `Node ${report.node} serves no mailbox right now; ${cluster}.` : 'No accounts are bridged.'];
  const header = report.node ? [`Node ${report.node} serves these; ${cluster}.`] : [];
  return header.concat(
    report.accounts.flatMap((a) => {
      const token = a.token.problem
        ? `${a.token.condition}: ${a.token.problem}`
        : `${a.token.condition} (refresh token until ${a.token.refreshExpiresAt})`;
      const lines = [
        `${a.mailbox}`,
        `  token     ${token}`,
        `  vendor    last answer ${a.vendor.lastSuccessAt ?? 'none since start'}${a.vendor.lastError ? `, last error: ${a.vendor.lastError}` : ''}`,
        `  pending   ${a.pending.queuedRequests} queued vendor request(s), ${a.pending.runningSyncs} folder sync(s) running`,
      ];
      if (!a.folders.length) lines.push('  folders   none opened since start');
      for (const f of a.folders)
        lines.push(
          `  folder    ${f.folder}: ${f.messages ?? '?'} messages, last sync ${f.lastSyncAt ?? 'never'}, last poll ${f.lastPollAt ?? 'never'}${f.syncing ? ', syncing now' : ''}${f.error ? `, failing: ${f.error}` : ''}`,
        );
      const held = a.quarantine.filter((q) => q.state === 'held');
      lines.push(`  quarantine ${held.length} held, ${a.quarantine.length - held.length} released or expired`);
      for (const q of held) lines.push(`    ${q.id} to ${q.recipient} "${q.subject}" until ${q.expiresAt}`);
      return lines;
    }),
  );
}
