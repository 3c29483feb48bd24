import readline from 'node:readline';
import type { TokenPair } from '../model/tokens';

/**
 * Token pairs are read from MAILBRIDGE_ACCESS_TOKEN / MAILBRIDGE_REFRESH_TOKEN or from stdin
 * (access token on the first line, refresh token on the second), never from argv, where any
 * local user could read them in the process list.
 */
export async function readTokensFromEnvOrStdin(
  env: NodeJS.ProcessEnv = process.env,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<TokenPair> {
  const fromEnv = {
    accessToken: env.MAILBRIDGE_ACCESS_TOKEN?.trim(),
    refreshToken: env.MAILBRIDGE_REFRESH_TOKEN?.trim(),
  };
  if (fromEnv.accessToken && fromEnv.refreshToken)
    return { accessToken: fromEnv.accessToken, refreshToken: fromEnv.refreshToken };
  if ((input as NodeJS.ReadStream).isTTY)
    process.stderr.write('Paste the access token, Enter, then the refresh token, Enter:\n');
  const lines: string[] = [];
  const rl = readline.createInterface({ input, terminal: false });
  for await (const line of rl) {
    if (line.trim()) lines.push(line.trim());
    if (lines.length === 2) break;
  }
  rl.close();
  if (lines.length < 2) {
    throw new Error(
      'no token pair given: set MAILBRIDGE_ACCESS_TOKEN and MAILBRIDGE_REFRESH_TOKEN, ' +
        'or pipe the two tokens on stdin (access first)',
    );
  }
  return { accessToken: lines[0], refreshToken: lines[1] };
}
