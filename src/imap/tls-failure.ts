import type { Logger } from '../log';

interface HandshakeError {
  code?: string;
  reason?: string;
  message?: string;
  meta?: { stage?: string; remoteAddress?: string };
}

/** A TLS handshake a client gave up on (most often: it does not trust the self-signed certificate). */
function handshakeFailure(err: unknown): HandshakeError | null {
  const e = err as HandshakeError | undefined;
  if (!e || typeof e !== 'object') return null;
  const tls =
    e.code?.startsWith('ERR_SSL') ||
    e.code === 'TLSError' ||
    e.code === 'ERR_TLS_HANDSHAKE_TIMEOUT' ||
    e.meta?.stage === 'starttls' ||
    e.message === 'Failed to establish TLS session';
  return tls ? e : null;
}

/**
 * Logs each failed handshake once, at info, in one line without OpenSSL's stack: a client
 * refusing the certificate is the client's setup, not the bridge failing. imap-core reports
 * one failure up to four times (its connection's error log and error event, each twice).
 * False for any other error.
 */
export function handshakeLogger(logger: Logger): { report(err: unknown): boolean } {
  const seen = new WeakSet<object>();
  return {
    report(err) {
      const failure = handshakeFailure(err);
      if (!failure) return false;
      if (seen.has(failure)) return true;
      seen.add(failure);
      logger.info(
        { component: 'imap', remoteAddress: failure.meta?.remoteAddress, reason: failure.reason ?? failure.message },
        'a client ended the TLS handshake; if it is a mail client, make it trust the bridge certificate ' +
          '("mailbridge client-config" or "mailbridge cert export")',
      );
      return true;
    },
  };
}

/** The logger imap-core gets: its error lines about failed handshakes go to `handshakes` instead. */
export function imapCoreLogger(logger: Logger, handshakes: { report(err: unknown): boolean }): Logger {
  return new Proxy(logger, {
    get(target, key, receiver) {
      if (key !== 'error') return Reflect.get(target, key, receiver);
      return (data: unknown, ...rest: unknown[]) => {
        if (handshakes.report((data as { err?: unknown } | undefined)?.err)) return;
        (target.error as (...args: unknown[]) => void)(data, ...rest);
      };
    },
  });
}
