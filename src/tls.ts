import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { writeFileAtomic } from './util/atomic-file';
import { workerScript } from './util/worker-script';

export interface TlsPair {
  key: string;
  cert: string;
}

/**
 * The configured pair, or a self-signed one for localhost kept in the state dir so clients
 * that pinned it on first use keep trusting it across restarts.
 */
export async function loadOrCreateTls(
  tls: { cert: string | null; key: string | null },
  stateDir: string,
): Promise<TlsPair> {
  if (tls.cert && tls.key) return { cert: fs.readFileSync(tls.cert, 'utf8'), key: fs.readFileSync(tls.key, 'utf8') };
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
