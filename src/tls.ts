import fs from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import { writeFileAtomic } from './util/atomic-file';

export interface TlsPair {
  key: string;
  cert: string;
}

/**
 * The configured pair, or a self-signed one for localhost kept in the state dir so clients
 * that pinned it on first use keep trusting it across restarts.
 */
export async function loadOrCreateTls(tls: { cert: string | null; key: string | null }, stateDir: string): Promise<TlsPair> {
  if (tls.cert && tls.key) return { cert: fs.readFileSync(tls.cert, 'utf8'), key: fs.readFileSync(tls.key, 'utf8') };
  const keyFile = path.join(stateDir, 'tls-key.pem');
  const certFile = path.join(stateDir, 'tls-cert.pem');
  if (fs.existsSync(keyFile) && fs.existsSync(certFile)) {
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  }
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  writeFileAtomic(keyFile, pems.private);
  writeFileAtomic(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert };
}
