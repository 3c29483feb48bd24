import fs from 'node:fs';
import { type AccountId, accountId } from './model/account-id';
import path from 'node:path';
import { z } from 'zod';
import { assumptionOverridesSchema, resolveAssumptions, type Assumptions } from './upstream/assumptions';

const port = z.number().int().min(0).max(65535);
const url = z
  .string()
  .url('must be an absolute URL such as https://api.example.com')
  .transform((u) => u.replace(/\/+$/, ''));

const seconds = z.number().min(1).max(86_400);

const limitsSchema = z
  .object({
    /** Longest command line before login (IMAP and SMTP); longer ones get a BAD and a disconnect. */
    maxLineBytesBeforeLogin: z.number().int().min(1024).max(1_048_576).default(8192),
    /** Longest IMAP command line after login (long UID sets); literals do not count. */
    maxLineBytes: z.number().int().min(1024).max(16_777_216).default(65_536),
    /** Open connections per protocol (IMAP listeners together, SMTP listeners together). */
    maxConnections: z.number().int().min(1).max(100_000).default(400),
    /** Open connections per protocol from one address (all local clients share 127.0.0.1). */
    maxConnectionsPerPeer: z.number().int().min(1).max(100_000).default(250),
    /** A client that has not logged in this long after connecting is disconnected. */
    loginTimeoutSeconds: seconds.default(60),
    /** A connection with no traffic this long is closed (an IMAP client in IDLE is only pinged). */
    socketTimeoutSeconds: seconds.default(5 * 60 + 37),
    /** IDLE ends after this (RFC 2177: clients re-issue it at least every 29 minutes). */
    idleTimeoutSeconds: seconds.default(31 * 60),
    /** Failed logins from one address answered at once; later ones wait a growing delay. */
    freeLoginFailures: z.number().int().min(0).max(1000).default(3),
    /** At SIGTERM, how long transfers in progress may finish before every client is disconnected. */
    shutdownDrainSeconds: z.number().min(0).max(600).default(10),
  })
  .strict()
  .prefault({});

export type Limits = z.output<typeof limitsSchema>;

const accountSchema = z
  .object({
    mailbox: z.string().email('must be the mailbox address, e.g. "me@example.com"').transform(accountId),
    accessToken: z.string().min(1).optional(),
    refreshToken: z.string().min(1).optional(),
  })
  .strict();

export const configSchema = z
  .object({
    vendor: z
      .object({
        readUrl: url,
        mailUrl: url,
        graphUrl: url,
        apiKey: z.string().min(1, 'set the send-and-manage key from the dashboard Developer page').optional(),
        timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
      })
      .strict(),
    accounts: z.array(accountSchema).default([]),
    listen: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        imapPort: port.default(1143),
        imapsPort: port.nullable().default(null),
        smtpPort: port.default(1025),
        smtpsPort: port.nullable().default(null),
      })
      .strict()
      .default({ host: '127.0.0.1', imapPort: 1143, imapsPort: null, smtpPort: 1025, smtpsPort: null }),
    stateDir: z.string().min(1).default('./mailbridge-state'),
    tls: z
      .object({ cert: z.string().nullable().default(null), key: z.string().nullable().default(null) })
      .strict()
      .default({ cert: null, key: null }),
    pollIntervalSeconds: z.number().min(1).max(86_400).default(30),
    /**
     * SELECT, EXAMINE and STATUS answer from local state; a folder synced longer ago than this is
     * also synced in the background (one sync however many sessions ask).
     */
    freshnessSeconds: z.number().min(0).max(86_400).default(15),
    /** Every Nth poll is a full reconciliation (flag changes and removals made elsewhere). */
    fullSyncEveryPolls: z.number().int().min(1).max(10_000).default(10),
    maxMessageBytes: z
      .number()
      .int()
      .min(1024)
      .default(25 * 1024 * 1024),
    /** IMAP parent folder of the label views (Labels/Work); null hides labels as folders. */
    labelsFolder: z
      .string()
      .regex(
        /^[^/*%\x00-\x1f\x7f]+$/,
        'must be one folder name without "/", "*" or "%", e.g. "Labels", or null to hide label folders',
      )
      .nullable()
      .default('Labels'),
    /**
     * COPY to a folder, which the vendor cannot do (a message lives in one folder): "move" moves
     * it, so clients without MOVE that file mail by COPY + \Deleted + EXPUNGE (mutt, NeoMutt,
     * older Outlook) can file mail at all; "refuse" answers NO [CANNOT], for setups where a
     * copy that moves is worse than no copy.
     */
    copyToFolder: z.enum(['refuse', 'move']).default('move'),
    /**
     * Which IMAP clients are offered COMPRESS=DEFLATE (RFC 4978): "remote", those on another
     * machine (over loopback compressing costs both ends CPU and saves nothing); "always"; "never".
     */
    imapCompression: z.enum(['remote', 'always', 'never']).default('remote'),
    /** What the listeners allow each client (docs/configuration.md, "Limits and hardening"). */
    limits: limitsSchema,
    /** How received messages are composed (upstream/composition.ts); applied when a message is first read. */
    messages: z
      .object({
        /** authserv-id of Authentication-Results; null: the host of vendor.readUrl. */
        authservId: z
          .string()
          .regex(/^[A-Za-z0-9.-]+$/, 'must be a host name such as mail.example.com')
          .nullable()
          .default(null),
        spamFlagThreshold: z.number().default(5),
        messagePartsUpTo: z
          .number()
          .int()
          .min(0)
          .default(1024 * 1024),
      })
      .strict()
      .default({ authservId: null, spamFlagThreshold: 5, messagePartsUpTo: 1024 * 1024 }),
    submission: z
      .object({
        /**
         * How every recipient gets a message that shows all To and Cc recipients (Bcc never shown):
         * "headers", one /v3.0/send per recipient with To/Cc in its `headers` field (A26), or
         * "command", one call of the mailbox's send command with to/cc/bcc lists (A8, A27).
         */
        recipients: z.enum(['headers', 'command']).default('headers'),
      })
      .strict()
      .default({ recipients: 'headers' }),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** "auto": readable lines on a terminal, JSON lines otherwise; "json" or "pretty" always. */
    logFormat: z.enum(['auto', 'json', 'pretty']).default('auto'),
    /**
     * The operations surface: an HTTP listener for /healthz, /readyz and /metrics (loopback by
     * default; "0.0.0.0" lets a Prometheus outside the pod scrape it; port null turns it off),
     * and how long without a vendor answer or with a failing folder makes /readyz fail.
     * `status`, `resync` and `reload` use the control socket in the state directory instead.
     */
    ops: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: port.nullable().default(9925),
        staleAfterSeconds: z.number().int().min(10).max(86_400).default(300),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 9925, staleAfterSeconds: 300 }),
    /**
     * Where the state lives. By default the SQLite file in stateDir (one node). With `postgres`
     * (a connection string) several bridge nodes share one PostgreSQL database; token pairs and
     * password hashes are sealed there with `secretKey` (32 bytes, base64 or hex). Each account
     * is served by one node at a time, which holds its lease: `node` names this node (unique
     * among the nodes; host name and process id by default), and a dead node's accounts move
     * to others within about 4/3 of `leaseSeconds`.
     */
    state: z
      .object({
        postgres: z.string().min(1).nullable().default(null),
        secretKey: z.string().min(1).nullable().default(null),
        node: z.string().min(1).nullable().default(null),
        leaseSeconds: z.number().min(1).max(600).default(10),
        /** The host other nodes reach this node's listeners at (they forward clients to it); listen.host by default. */
        advertiseHost: z.string().min(1).nullable().default(null),
      })
      .strict()
      .default({ postgres: null, secretKey: null, node: null, leaseSeconds: 10, advertiseHost: null }),
    /** Overrides of src/upstream/assumptions.ts, deep-merged onto its defaults. */
    assumptions: assumptionOverridesSchema.default({}),
  })
  .strict();

export type Config = Omit<z.output<typeof configSchema>, 'assumptions'> & {
  assumptions: Assumptions;
  /** Absolute path of the state directory. */
  stateDir: string;
  /** Absolute path of the file it was read from (for the commands printed to users), or null. */
  configFile: string | null;
};

/** MAILBRIDGE_* environment variables and the config field each overrides. */
const envOverrides: Array<[string, string[], 'string' | 'number' | 'port']> = [
  ['MAILBRIDGE_READ_URL', ['vendor', 'readUrl'], 'string'],
  ['MAILBRIDGE_MAIL_URL', ['vendor', 'mailUrl'], 'string'],
  ['MAILBRIDGE_GRAPH_URL', ['vendor', 'graphUrl'], 'string'],
  ['MAILBRIDGE_API_KEY', ['vendor', 'apiKey'], 'string'],
  ['MAILBRIDGE_LISTEN_HOST', ['listen', 'host'], 'string'],
  ['MAILBRIDGE_IMAP_PORT', ['listen', 'imapPort'], 'number'],
  ['MAILBRIDGE_IMAPS_PORT', ['listen', 'imapsPort'], 'number'],
  ['MAILBRIDGE_SMTP_PORT', ['listen', 'smtpPort'], 'number'],
  ['MAILBRIDGE_SMTPS_PORT', ['listen', 'smtpsPort'], 'number'],
  ['MAILBRIDGE_STATE_DIR', ['stateDir'], 'string'],
  ['MAILBRIDGE_TLS_CERT', ['tls', 'cert'], 'string'],
  ['MAILBRIDGE_TLS_KEY', ['tls', 'key'], 'string'],
  ['MAILBRIDGE_POLL_INTERVAL', ['pollIntervalSeconds'], 'number'],
  ['MAILBRIDGE_FRESHNESS', ['freshnessSeconds'], 'number'],
  ['MAILBRIDGE_IMAP_COMPRESSION', ['imapCompression'], 'string'],
  ['MAILBRIDGE_LOG_LEVEL', ['logLevel'], 'string'],
  ['MAILBRIDGE_LOG_FORMAT', ['logFormat'], 'string'],
  ['MAILBRIDGE_MAX_LINE_BYTES_BEFORE_LOGIN', ['limits', 'maxLineBytesBeforeLogin'], 'number'],
  ['MAILBRIDGE_MAX_LINE_BYTES', ['limits', 'maxLineBytes'], 'number'],
  ['MAILBRIDGE_MAX_CONNECTIONS', ['limits', 'maxConnections'], 'number'],
  ['MAILBRIDGE_MAX_CONNECTIONS_PER_PEER', ['limits', 'maxConnectionsPerPeer'], 'number'],
  ['MAILBRIDGE_LOGIN_TIMEOUT', ['limits', 'loginTimeoutSeconds'], 'number'],
  ['MAILBRIDGE_SOCKET_TIMEOUT', ['limits', 'socketTimeoutSeconds'], 'number'],
  ['MAILBRIDGE_IDLE_TIMEOUT', ['limits', 'idleTimeoutSeconds'], 'number'],
  ['MAILBRIDGE_FREE_LOGIN_FAILURES', ['limits', 'freeLoginFailures'], 'number'],
  ['MAILBRIDGE_SHUTDOWN_DRAIN', ['limits', 'shutdownDrainSeconds'], 'number'],
  ['MAILBRIDGE_OPS_HOST', ['ops', 'host'], 'string'],
  ['MAILBRIDGE_OPS_PORT', ['ops', 'port'], 'port'],
  ['MAILBRIDGE_POSTGRES_URL', ['state', 'postgres'], 'string'],
  ['MAILBRIDGE_STATE_KEY', ['state', 'secretKey'], 'string'],
  ['MAILBRIDGE_NODE', ['state', 'node'], 'string'],
  ['MAILBRIDGE_LEASE_SECONDS', ['state', 'leaseSeconds'], 'number'],
  ['MAILBRIDGE_ADVERTISE_HOST', ['state', 'advertiseHost'], 'string'],
];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function setPath(obj: Record<string, unknown>, keys: string[], value: unknown): void {
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = value;
}

/** Every setting's default (the vendor URLs, which have none, are placeholders). */
export function configDefaults(): z.output<typeof configSchema> {
  return configSchema.parse({ vendor: { readUrl: 'http://x', mailUrl: 'http://x', graphUrl: 'http://x' } });
}

/** The example a wrong MAILBRIDGE_* number is told: the field's default, when it has one. */
function example(name: string, keys: string[], type: 'number' | 'port'): string {
  let value: unknown = configDefaults();
  for (const k of keys) value = (value as Record<string, unknown> | null | undefined)?.[k];
  const off = type === 'port' ? `, or ${name}=off` : '';
  return typeof value === 'number' ? `set it to e.g. ${name}=${value} (the default)${off}` : `set it to a number${off}`;
}

export function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  for (const [name, keys, type] of envOverrides) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    if (type === 'port' && v === 'off') setPath(raw, keys, null);
    else if (type !== 'string') {
      const n = Number(v);
      if (!Number.isFinite(n))
        throw new ConfigError(`${name}=${JSON.stringify(v)} is not a number; ${example(name, keys, type)}`);
      setPath(raw, keys, n);
    } else setPath(raw, keys, v);
  }
}

function describeIssue(issue: z.core.$ZodIssue, source: string): string {
  const field = issue.path.map(String).join('.') || '(top level)';
  const envName = envOverrides.find(([, keys]) => keys.join('.') === field)?.[0];
  const where = envName ? `${source} or ${envName}` : source;
  let fix = issue.message;
  if (issue.code === 'unrecognized_keys')
    fix = `unknown key(s) ${issue.keys.join(', ')}: remove them or fix the spelling (see config.example.json)`;
  else if (issue.code === 'invalid_type' && issue.input === undefined)
    fix = `missing: add "${field}" (see config.example.json)`;
  return `config field "${field}" (${where}): ${fix}`;
}

/** Validates a raw config object (file contents with env overrides applied). */
export function parseConfig(
  raw: unknown,
  source = 'config',
  baseDir = process.cwd(),
  configFile: string | null = null,
): Config {
  // reportInput tells a missing field (input undefined) from a wrong-typed one
  const result = configSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => describeIssue(i, source)).join('\n'));
  }
  const cfg = result.data;
  const mailboxes = new Set<AccountId>();
  for (const a of cfg.accounts) {
    if (mailboxes.has(a.mailbox))
      throw new ConfigError(`config field "accounts": mailbox ${a.mailbox} is listed twice; keep one entry`);
    mailboxes.add(a.mailbox);
  }
  const ports = [
    cfg.listen.imapPort,
    cfg.listen.imapsPort,
    cfg.listen.smtpPort,
    cfg.listen.smtpsPort,
    cfg.ops.port,
  ].filter((p) => p);
  if (new Set(ports).size !== ports.length)
    throw new ConfigError(
      'config fields "listen" and "ops.port": two listeners use the same port; give each a distinct port',
    );
  if ((cfg.tls.cert === null) !== (cfg.tls.key === null))
    throw new ConfigError(
      'config field "tls": set both cert and key, or neither (a self-signed pair is then generated)',
    );
  if (cfg.state.postgres && !cfg.state.secretKey)
    throw new ConfigError(
      'config field "state": postgres needs secretKey (or MAILBRIDGE_STATE_KEY), the key that seals stored tokens',
    );
  return {
    ...cfg,
    stateDir: path.resolve(baseDir, cfg.stateDir),
    tls: {
      cert: cfg.tls.cert && path.resolve(baseDir, cfg.tls.cert),
      key: cfg.tls.key && path.resolve(baseDir, cfg.tls.key),
    },
    assumptions: resolveAssumptions(cfg.assumptions),
    configFile,
  };
}

function readConfigFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new ConfigError(
        `config file ${file} does not exist: create it with "mailbridge setup" (or from config.example.json), or pass another with --config`,
      );
    if (code === 'EACCES')
      throw new ConfigError(
        `config file ${file} is not readable by this process (uid ${process.getuid?.() ?? '?'}): make it readable by this user (chown or chmod), or run as its owner`,
      );
    if (code === 'EISDIR')
      throw new ConfigError(`config file ${file} is a directory: pass the JSON file in it with --config`);
    throw new ConfigError(
      `cannot read config file ${file} (${(err as Error).message}): pass a readable file with --config`,
    );
  }
}

/** Line and column (1-based) of a character offset, as editors count them. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length} column ${before[before.length - 1].length + 1}`;
}

function parseConfigText(text: string, file: string): Record<string, unknown> {
  if (!text.trim())
    throw new ConfigError(
      `config file ${file} is empty: write the settings into it (see config.example.json, or run "mailbridge setup")`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // V8 names the offset ("... in JSON at position 45"); people look for a line and a column
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    const where = at ? lineAndColumn(text, Number(at[1])) : 'the end';
    const what = message
      .replace(/ in JSON at position \d+.*$/, '')
      .replace(/^Unexpected end of JSON input$/, 'unexpected end');
    throw new ConfigError(`config file ${file}, ${where}: invalid JSON (${what}); fix the file there`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`config file ${file} must hold a JSON object ({ ... }); see config.example.json`);
  return raw as Record<string, unknown>;
}

export interface RawConfig {
  raw: Record<string, unknown>;
  /** Where the values came from, for error messages. */
  source: string;
  /** Relative paths in it are relative to this directory. */
  baseDir: string;
}

/** The JSON file (if any) with MAILBRIDGE_* overrides applied, not validated yet. */
export function readRawConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): RawConfig {
  let raw: Record<string, unknown> = {};
  let source = 'environment';
  let baseDir = process.cwd();
  if (file) {
    source = file;
    baseDir = path.dirname(path.resolve(file));
    raw = parseConfigText(readConfigFile(file), file);
  }
  applyEnv(raw, env);
  return { raw, source, baseDir };
}

export type ListenerSettings = Pick<Config, 'listen' | 'ops'>;

/**
 * Only where the listeners are, from the file and the environment: what `healthcheck` needs,
 * so it works whatever the rest of the config says (e.g. a demo's, which names no vendor).
 */
export function loadListenerSettings(file: string | undefined, env: NodeJS.ProcessEnv = process.env): ListenerSettings {
  const { raw, source } = readRawConfig(file, env);
  const result = configSchema.pick({ listen: true, ops: true }).safeParse({ listen: raw.listen, ops: raw.ops });
  if (!result.success) throw new ConfigError(result.error.issues.map((i) => describeIssue(i, source)).join('\n'));
  return result.data;
}

/** Reads the JSON file (if any), applies MAILBRIDGE_* overrides, validates. */
export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Config {
  const { raw, source, baseDir } = readRawConfig(file, env);
  return parseConfig(raw, source, baseDir, file ? path.resolve(file) : null);
}
