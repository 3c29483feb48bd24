import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { mailbridge } from '../support/daemon';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-cert-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    vendor: { readUrl: 'http://127.0.0.1:9', mailUrl: 'http://127.0.0.1:9', graphUrl: 'http://127.0.0.1:9' },
    stateDir: path.join(dir, 'state'),
  }),
);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('"cert export" writes the listeners\' certificate as PEM or DER, the same one each time', async () => {
  const pemFile = path.join(dir, 'mailbridge.crt');
  const derFile = path.join(dir, 'mailbridge.cer');
  const pem = await mailbridge('cert', 'export', '--out', pemFile, '--config', config);
  await mailbridge('cert', 'export', '--der', '--out', derFile, '--config', config);
  const { stdout } = await mailbridge('cert', 'export', '--config', config);

  const text = fs.readFileSync(pemFile, 'utf8');
  expect(text).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
  expect(stdout).toBe(text);
  const cert = new X509Certificate(text);
  expect(new X509Certificate(fs.readFileSync(derFile)).fingerprint256).toBe(cert.fingerprint256);
  expect(pem.stderr).toBe(`SHA-256 fingerprint: ${cert.fingerprint256}\n`);
  // it is the pair the daemon will present, kept in the state dir
  expect(fs.readFileSync(path.join(dir, 'state', 'tls-cert.pem'), 'utf8')).toContain(text.trim());
  expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
});
