import { expect, test } from 'vitest';
import { checkTools } from './tools';

test('a missing test tool fails with the line that installs it', () => {
  expect(() =>
    checkTools([
      { name: 'no-such-client', pkg: 'no-such-pkg', probe: ['mailbridge-no-such-binary', '--version'] },
      { name: 'node', pkg: 'nodejs', probe: [process.execPath, '--version'] },
    ]),
  ).toThrow('missing test tools: no-such-client. Install with: apt-get install -y --no-install-recommends no-such-pkg');
  expect(() => checkTools([{ name: 'node', pkg: 'nodejs', probe: [process.execPath, '--version'] }])).not.toThrow();
});
