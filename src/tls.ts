import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConfigError } from './config';
import { writeFileAtomic } from './util/atomic-file';
import { workerScript } from './util/worker-script';

export interface TlsPair {
  key: string;
  cert: string;
}

/**
 * What every TLS listener (IMAP, SMTP, implicit and STARTTLS) accepts: TLS 1.2 or later
 * and, for TLS 1.2, only ECDHE key exchange (forward secrecy) with an AEAD cipher (GCM or
 * ChaCha20-Poly1305). TLS 1.3 suites all have both properties. No RSA key exchange, no
 * CBC, no SHA-1 MACs.
 */
export const tlsPolicy = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
} as const;

/**
 * The configured pair, or a self-signed one for localhost kept in the state dir so clients
 * that pinned it on first use keep trusting it across restarts.
 */
/** A file the config names: one that cannot be read is a configuration error (exit 2), named as such. */
export async function loadOrCreateTls(
  tls: { cert: string | null; key: string | null },
  stateDir: string,
): Promise<TlsPair> {
  if (tls.cert && tls.key) return { cert: readConfigured('cert', tls.cert), key: readConfigured('key', tls.key) };
  const keyFile = path.join(stateDir, 'tls-key.pem');
  const certFile = path.join(stateDir, 'tls-cert.pem');
  if (fs.existsSync(keyFile) && fs.existsSync(certFile)) {
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  }
  const pems = await generateInWorker();
  writeFileAtomic(keyFile, pems.private);
  writeFileAtomic(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert };
}

/** A configured TLS file, or the one line that says which setting to fix. */
function readConfigured(field: 'cert' | 'key', file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new ConfigError(
      `config field "tls.${field}": cannot read ${file} (${reason}); point it at the ${field === 'cert' ? 'certificate' : 'private key'} file, or remove "tls" to use the bridge's own certificate`,
    );
  }
}

/**
 * The certificate as a trust store takes it: PEM (Linux update-ca-certificates, macOS
 * Keychain, Thunderbird) or DER (Windows certificate import). Only the first certificate
 * of a configured chain: that is the one the listeners present.
 */
export function certificateForTrustStore(
  certPem: string,
  format: 'pem' | 'der',
): { data: Buffer; fingerprint: string } {
  const cert = new X509Certificate(certPem);
  return { data: format === 'der' ? cert.raw : Buffer.from(cert.toString()), fingerprint: cert.fingerprint256 };
}

/**
 * The self-signed pair is made in a worker thread that ends afterwards: the X.509 toolkit is
 * hundreds of modules (about 25 MB resident) the running bridge would otherwise keep loaded.
 */
function generateInWorker(): Promise<{ private: string; cert: string }> {
  const { file, options } = workerScript(__filename, 'tls-worker');
  return new Promise((resolve, reject) => {
    const worker = new Worker(file, options);
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`TLS certificate worker exited with code ${code}`)));
  });
}
