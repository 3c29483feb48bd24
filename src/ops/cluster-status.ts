import type { Config } from '../config';
import { ConfigError } from '../config';
import { pgPool } from '../store/pg/pg-state';

/**
 * `mailbridge status --cluster`: every node of a PostgreSQL state and the mailboxes it serves,
 * read from PostgreSQL (the `nodes` and `leases` tables), so it answers from any machine that
 * has the config, with or without a node running there. A node's last heartbeat is its last
 * renewal: its row runs out `leaseSeconds` after that, on PostgreSQL's clock.
 */

export interface ClusterNode {
  node: string;
  imap: string | null;
  smtp: string | null;
  /** Whether its heartbeat is live (a node that stopped cleanly has no row). */
  alive: boolean;
  lastHeartbeatAt: string;
  secondsSinceHeartbeat: number;
  mailboxes: string[];
}

export interface ClusterReport {
  leaseSeconds: number;
  nodes: ClusterNode[];
  /** Mailboxes configured or leased before that no live lease holds now (a takeover under way). */
  unserved: string[];
}

export async function readCluster(config: Config): Promise<ClusterReport> {
  const { postgres, leaseSeconds } = config.state;
  if (!postgres)
    throw new ConfigError('status --cluster reads the nodes from state.postgres, which this config does not set');
  const pool = pgPool(postgres, leaseSeconds * 1000);
  try {
    const nodes = await pool.query<{
      node: string;
      imap: string | null;
      smtp: string | null;
      alive: boolean;
      beat: Date;
      ago: number;
    }>(
      `SELECT node, imap, smtp, expires_at > now() AS alive, expires_at - make_interval(secs => $1) AS beat,
              extract(epoch FROM now() - (expires_at - make_interval(secs => $1)))::float8 AS ago
         FROM nodes ORDER BY node`,
      [leaseSeconds],
    );
    const leases = await pool.query<{ account: string; owner: string; live: boolean }>(
      'SELECT account, owner, expires_at > now() AS live FROM leases ORDER BY account',
    );
    const served = new Map<string, string[]>();
    for (const l of leases.rows.filter((r) => r.live)) served.set(l.owner, [...(served.get(l.owner) ?? []), l.account]);
    const held = new Set(leases.rows.filter((r) => r.live).map((r) => r.account));
    const known = new Set([...leases.rows.map((r) => r.account), ...config.accounts.map((a) => a.mailbox)]);
    return {
      leaseSeconds,
      nodes: nodes.rows.map((n) => ({
        node: n.node,
        imap: n.imap,
        smtp: n.smtp,
        alive: n.alive,
        lastHeartbeatAt: n.beat.toISOString(),
        secondsSinceHeartbeat: Math.max(0, Math.round(n.ago * 10) / 10),
        mailboxes: served.get(n.node) ?? [],
      })),
      unserved: [...known].filter((m) => !held.has(m)).sort(),
    };
  } finally {
    await pool.end();
  }
}

export function formatCluster(report: ClusterReport): string[] {
  if (!report.nodes.length) return ['No node has joined this PostgreSQL state.'];
  const lines = report.nodes.map((n) => {
    const state = n.alive ? 'alive' : 'gone ';
    const serves = n.mailboxes.length ? `serves ${n.mailboxes.length}: ${n.mailboxes.join(', ')}` : 'serves none';
    return `${n.node}  ${state}  imap ${n.imap ?? '-'}  smtp ${n.smtp ?? '-'}  last heartbeat ${n.secondsSinceHeartbeat} s ago  ${serves}`;
  });
  if (report.unserved.length) lines.push(`Not served right now: ${report.unserved.join(', ')}`);
  return lines;
}
