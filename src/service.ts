import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binPath } from './command-name';
import { allocatorEnvironment } from './util/memory';

export const unitName = 'mailbridge.service';

/** Where systemd looks for this user's units. */
export function userUnitDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'systemd', 'user');
}

/** One ExecStart word: "%" and "$" are systemd's specifier and variable signs, quotes keep spaces. */
function unitWord(word: string): string {
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[\w./@+=:,-]+$/.test(escaped) ? escaped : `"${escaped.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The systemd user unit that runs `start` with this Node.js and this installation's bin
 * directly: through npx, a stop signal would not reach the daemon. Exit status 2 is a
 * configuration that cannot work, which a restart does not mend.
 */
export function systemdUnit(configFile: string, node = process.execPath): string {
  const exec = [node, '--expose-gc', binPath, 'start', '--config', configFile].map(unitWord).join(' ');
  return [
    '[Unit]',
    'Description=mailbridge: local IMAP and SMTP bridge to the vendor mail API',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `Environment=${Object.entries(allocatorEnvironment)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')}`,
    `ExecStart=${exec}`,
    'Restart=on-failure',
    'RestartSec=5',
    'RestartPreventExitStatus=2',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** Writes the unit; the lines to print say how to start it and read its logs. */
export function installService(configFile: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = userUnitDir(env);
  const file = path.join(dir, unitName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, systemdUnit(path.resolve(configFile)), { mode: 0o644 });
  return [
    `Wrote ${file}`,
    'Start it now and at every login:',
    `  systemctl --user daemon-reload && systemctl --user enable --now ${unitName}`,
    'Keep it running without a login session (and start it at boot): loginctl enable-linger "$USER"',
    `Logs: journalctl --user -u ${unitName} -f`,
  ];
}

/** Removes the unit and its enablement link; the lines to print say what is left to do. */
export function uninstallService(env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = userUnitDir(env);
  const file = path.join(dir, unitName);
  if (!fs.existsSync(file)) return [`No ${unitName} in ${dir}: nothing to remove.`];
  fs.rmSync(path.join(dir, 'default.target.wants', unitName), { force: true });
  fs.rmSync(file);
  return [
    `Removed ${file}`,
    `A running one stops with: systemctl --user stop ${unitName} && systemctl --user daemon-reload`,
  ];
}
