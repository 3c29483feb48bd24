import { parentPort } from 'node:worker_threads';
import { generate } from 'selfsigned';

/**
 * Worker side of tls.ts: a self-signed certificate for localhost and its key, as PEM. The key
 * pair comes from Node's own RSA generator (node-forge, under selfsigned 2, uses it when it is
 * there); the X.509 encoding is node-forge's, one package where selfsigned 5 brings 22.
 */
const pems = generate([{ name: 'commonName', value: 'localhost' }], {
  keySize: 2048,
  algorithm: 'sha256',
  extensions: [
    { name: 'basicConstraints', cA: false },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
      ],
    },
  ],
});
// node-forge ends PEM lines with CRLF; the certificate files and `cert export` keep LF
const lf = (pem: string) => pem.replace(/\r\n/g, '\n');
parentPort!.postMessage({ private: lf(pems.private), cert: lf(pems.cert) });
