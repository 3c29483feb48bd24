import fs from 'node:fs';
import path from 'node:path';

/** This installation's version, from its package.json (the same file from src/ and dist/). */
export const version: string = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
