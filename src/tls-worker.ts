import { parentPort } from 'node:worker_threads';
import { generate } from 'selfsigned';

/** Worker side of tls.ts: a self-signed certificate for localhost and its key, as PEM. */
void generate([{ name: 'commonName', value: 'localhost' }], {
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
}).then((pems) => parentPort!.postMessage({ private: pems.private, cert: pems.cert }));
