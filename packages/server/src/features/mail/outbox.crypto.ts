import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Config } from '../../config.js';
import { secretBytes } from '../../lib/secret-key.js';

/**
 * Mail at rest (decision 0012). A queued message carries live links (verification, setup, reset),
 * so its subject and parts are sealed with AES-256-GCM under a key derived from SECRET_KEY: a copy
 * of the database, a backup or a read-only SQL hole yields no usable link.
 */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * What sealed content is bound to (GCM associated data): pasted into another row, or with the
 * recipient changed to an attacker's address, it no longer opens and the row is never sent.
 */
export interface SealBinding {
  id: string;
  to: string;
}

/** Opening failed: a wrong SECRET_KEY, or a row altered or moved. Nothing is sent then. */
export class SealedMailError extends Error {
  override name = 'SealedMailError';
}

const VERSION = 'v1';
/** Written by migration 006 for unsent mail of an older version; sealed at the next boot. */
export const UNSEALED_PREFIX = 'unsealed.';
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF's info label: this key serves the outbox only, whatever else SECRET_KEY comes to key. */
const KEY_LABEL = 'foyer/mail_outbox/aes-256-gcm/v1';

export type OutboxKey = KeyObject;

export function deriveOutboxKey(secret: Buffer): OutboxKey {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_LABEL, 32)));
}

/** The outbox key of a configuration (SECRET_KEY, the local key file, or the test key). */
export function outboxKeyOf(config: Pick<Config, 'secret'>): OutboxKey {
  return deriveOutboxKey(secretBytes(config.secret));
}

function associatedData(binding: SealBinding): Buffer {
  return Buffer.from(JSON.stringify(['mail_outbox', VERSION, binding.id, binding.to]), 'utf8');
}

/** `v1.<nonce>.<ciphertext>.<tag>`, base64url parts; a fresh random nonce for every row. */
export function sealMail(key: OutboxKey, binding: SealBinding, content: MailContent): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(binding));
  const plain = Buffer.from(JSON.stringify([content.subject, content.text, content.html]), 'utf8');
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return [VERSION, nonce, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

function parseContent(json: string): MailContent {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value) || value.length !== 3 || !value.every((part) => typeof part === 'string')) {
    throw new SealedMailError('sealed mail has an unexpected shape');
  }
  const [subject, text, html] = value as [string, string, string];
  return { subject, text, html };
}

/** Fails closed: any doubt about the key, the binding or the bytes throws SealedMailError. */
export function openMail(key: OutboxKey, binding: SealBinding, sealed: string): MailContent {
  const [version, nonce, body, tag, ...rest] = sealed.split('.');
  if (version !== VERSION || nonce === undefined || body === undefined || tag === undefined || rest.length > 0) {
    throw new SealedMailError('sealed mail is not in a known format');
  }
  let plain: string;
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(nonce, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(binding));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedMailError('sealed mail does not open with this SECRET_KEY (wrong key, or the row was altered)');
  }
  return parseContent(plain);
}

/** Reads what migration 006 left unsealed, to seal it (mail.plugin.ts, at boot). */
export function readUnsealed(stored: string): MailContent {
  if (!stored.startsWith(UNSEALED_PREFIX)) throw new SealedMailError('not unsealed content');
  return parseContent(Buffer.from(stored.slice(UNSEALED_PREFIX.length), 'base64url').toString('utf8'));
}
