import tty from 'node:tty';
import pino from 'pino';
import pretty from 'pino-pretty';

/**
 * Structured logger. Token-bearing keys are redacted by path, and `redactSecrets` scrubs
 * token-shaped substrings from free text, so vendor tokens never reach a log line.
 */
export type Logger = pino.Logger;

const secretPaths = [
  'accessToken',
  'refreshToken',
  'apiKey',
  'password',
  'authorization',
  'Authorization',
  '*.accessToken',
  '*.refreshToken',
  '*.apiKey',
  '*.password',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
];

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: secretPaths, censor: '[redacted]' }, base: { app: 'mailbridge' } },
    destination ?? pino.destination(2),
  );
}

export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Where log lines go (standard error): one readable line each on a terminal ("auto") or with
 * "pretty", JSON lines otherwise (journald, containers, collectors).
 */
export function logStream(format: LogFormat, fd = 2): pino.DestinationStream {
  const terminal = tty.isatty(fd);
  if (format === 'json' || (format === 'auto' && !terminal)) return pino.destination(fd);
  return pretty({
    destination: fd,
    sync: true,
    colorize: terminal,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,app',
  });
}

const known = new Set<string>();

/** Registers a secret value so `redactSecrets` removes it from any text. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 8) known.add(value);
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const s of known) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out.replace(/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, '$1[redacted]');
}
