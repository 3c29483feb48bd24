import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '../../config';
import { registerSecret } from '../../log';

/**
 * Seals the token pairs and password hashes kept in PostgreSQL: AES-256-GCM, a fresh 96-bit
 * nonce per record, the mailbox as associated data (a row copied onto another mailbox does not
 * open). The key comes from config or MAILBRIDGE_STATE_KEY and is never logged.
 */

const version = 1;
const nonceBytes = 12;
const tagBytes = 16;

export interface SecretBox {
  seal(mailbox: string, plaintext: string): Buffer;
  open(mailbox: string, sealed: Buffer): string;
}

/** 32 bytes, written as base64 or hex (`openssl rand -base64 32`). */
export function parseStateKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32)
    throw new ConfigError('state.secretKey must be 32 bytes in base64 or hex; make one with: openssl rand -base64 32');
  return key;
}

export function secretBox(keyText: string): SecretBox {
  registerSecret(keyText);
  const key = parseStateKey(keyText);
  return {
    seal(mailbox, plaintext) {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(mailbox));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([version]), nonce, cipher.getAuthTag(), body]);
    },
    open(mailbox, sealed) {
      if (sealed[0] !== version) throw new Error(`secrets of ${mailbox}: unknown sealing version ${sealed[0]}`);
      const nonce = sealed.subarray(1, 1 + nonceBytes);
      const tag = sealed.subarray(1 + nonceBytes, 1 + nonceBytes + tagBytes);
      const decipher = createDecipheriv('aes-256-gcm', key, nonce);
      decipher.setAAD(Buffer.from(mailbox));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(sealed.subarray(1 + nonceBytes + tagBytes)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new Error(`secrets of ${mailbox} do not open with state.secretKey (another key sealed them)`);
      }
    },
  };
}
