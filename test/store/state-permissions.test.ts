import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { enforceStatePermissions } from '../../src/store/state-permissions';
import { type Harness, startHarness } from '../support/bridge-harness';

let h: Harness | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-perms-'));

afterAll(async () => {
  await h?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

test('a state dir left open to everyone is closed at start: dirs 0700, files 0600', async () => {
  const state = path.join(dir, 'state');
  fs.mkdirSync(path.join(state, 'attachments', 'ab'), { recursive: true });
  fs.writeFileSync(path.join(state, 'attachments', 'ab', 'part.bin'), 'x');
  fs.writeFileSync(path.join(state, 'notes.txt'), 'x');
  for (const p of [state, path.join(state, 'attachments'), path.join(state, 'attachments', 'ab')])
    fs.chmodSync(p, 0o777);
  for (const p of [path.join(state, 'attachments', 'ab', 'part.bin'), path.join(state, 'notes.txt')])
    fs.chmodSync(p, 0o666);

  h = await startHarness({ config: { stateDir: state } });
  const everything = [state, ...fs.readdirSync(state, { recursive: true }).map((p) => path.join(state, String(p)))];
  expect(everything.map((p) => `${path.relative(dir, p)} ${modeOf(p)}`).sort()).toEqual(
    everything.map((p) => `${path.relative(dir, p)} ${fs.statSync(p).isDirectory() ? '700' : '600'}`).sort(),
  );
  // the start created the database and key pair, and those are covered as well
  expect(everything.map((p) => path.basename(p))).toEqual(expect.arrayContaining(['secrets.json', 'tls-key.pem']));
});

test('a mode that cannot be changed refuses the start and names the fix', () => {
  // a path that is not the caller's to change: /proc entries refuse chmod even for root
  expect(() => enforceStatePermissions('/proc/self/status')).toThrow(
    /\/proc\/self\/status has mode 444 and it cannot be changed to 600 \(E[A-Z]+\); as the owner of the state directory, run: chown -R "\$\(id -un\)" \/proc\/self\/status && chmod -R u=rwX,go= \/proc\/self\/status/,
  );
});
