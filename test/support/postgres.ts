import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { requireTools } from './tools';

/**
 * A private Debian PostgreSQL per test file: initdb into a temporary directory (as the
 * postgres user when the tests run as root, since the server refuses to run as root), a
 * socket-only server (listen_addresses '', its socket in that directory), stopped and removed
 * by `stop`. No system cluster or service is used or touched.
 */
export interface Postgres {
  /** The socket directory: node-postgres's `host` for a Unix socket. */
  socketDir: string;
  /** Settings of a client of the cluster's `postgres` database. */
  connection: { host: string; user: string; database: string };
  /** A new database in the cluster; returns its connection settings and the same as a connection string. */
  createDatabase(name: string): Promise<{ host: string; user: string; database: string; url: string }>;
  /** Stops the server (its clients lose their connections) and starts it again on `resume`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** One query on a connection of its own: a test reads the database as an outsider, beside the nodes. */
export async function queryOnce<T extends pg.QueryResultRow>(
  db: pg.ClientConfig,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client(db);
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** The newest installed server's binaries (Debian keeps each major version apart). */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) requireTools('postgres');
  return path.join(root, versions[0], 'bin');
}

const superuser = 'postgres';

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-pg-'));
  const data = path.join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  // the server runs as the postgres user, which must own its directory and may not be root
  const run = (program: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : path.join(bin, program),
      asRoot ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args,
      { stdio: 'pipe', timeout: 120_000, cwd: root },
    );
  if (asRoot) execFileSync('chown', ['postgres:', root]);
  run('initdb', ['-D', data, '-U', superuser, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const options = [
    "-c listen_addresses=''",
    `-c unix_socket_directories=${root}`,
    // the tests end server processes, not the cluster: durability against power loss is not tested
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  const start = () => run('pg_ctl', ['-D', data, '-l', path.join(root, 'server.log'), '-o', options, '-w', 'start']);
  start();
  const connection = { host: root, user: superuser, database: 'postgres' };
  return {
    socketDir: root,
    connection,
    async createDatabase(name) {
      const client = new pg.Client(connection);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return {
        ...connection,
        database: name,
        url: `postgresql://${superuser}@/${name}?host=${encodeURIComponent(root)}`,
      };
    },
    pause: () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    resume: () => {
      start();
    },
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
