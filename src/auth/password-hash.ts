import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Bridge password hashes. A bridge password is 18 random bytes (144 bits), so no guessing
 * attack gets anywhere near it and a slow key-derivation function would add nothing but
 * cost: scrypt took about 25 ms of CPU per login, and run on the main thread it stalled
 * every other session while 200 clients logged in. New hashes are therefore a salted
 * HMAC-SHA-256 (`hmac-sha256$salt$mac`, microseconds). Hashes written before,
 * `scrypt$salt$hash`, keep working: they are checked with the asynchronous scrypt, which
 * runs on libuv's thread pool, and replaced by the fast form after the next good login.
 */

const fastScheme = 'hmac-sha256';
const legacyScheme = 'scrypt';

export interface Verdict {
  ok: boolean;
  /** The stored hash is in the old slow form and should be replaced now that the password is known. */
  rehash: boolean;
}

function mac(password: string, salt: Buffer): Buffer {
  return createHmac('sha256', salt).update(password, 'utf8').digest();
}

export function hashPassword(password: string, salt = randomBytes(16)): string {
  return `${fastScheme}$${salt.toString('base64')}$${mac(password, salt).toString('base64')}`;
}

function scryptAsync(password: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, length, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Checked instead when the user has no hash, so an unknown user costs the same as a known one. */
const stranger = hashPassword(randomBytes(18).toString('base64url'));

export async function verifyPassword(stored: string | undefined, password: string): Promise<Verdict> {
  const [scheme, saltText, hashText] = (stored ?? stranger).split('$');
  const salt = Buffer.from(saltText ?? '', 'base64');
  const expected = Buffer.from(hashText ?? '', 'base64');
  if (salt.length === 0 || expected.length === 0) return { ok: false, rehash: false };
  if (scheme === fastScheme) {
    const actual = mac(password, salt);
    return {
      ok: stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected),
      rehash: false,
    };
  }
  if (scheme === legacyScheme) {
    const ok = timingSafeEqual(await scryptAsync(password, salt, expected.length), expected);
    return { ok, rehash: ok };
  }
  return { ok: false, rehash: false };
}
