import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Config } from '../../config.js';
import { secretBytes } from '../../lib/secret-key.js';

/**
 * An OIDC connection's client secret at rest (decision 0022): AES-256-GCM under a key derived
 * from SECRET_KEY and bound to the connection's id, so a copy of the database or a read-only SQL
 * hole yields no secret to impersonate this service at the company's provider with, and a sealed
 * value pasted into another connection's row does not open.
 */
const KEY_LABEL = 'foyer/sso_connections/client_secret/aes-256-gcm/v1';
const VERSION = 'v1';

function keyOf(config: Pick<Config, 'secret'>): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secretBytes(config.secret), Buffer.alloc(0), KEY_LABEL, 32)));
}

function aad(connectionId: string): Buffer {
  return Buffer.from(JSON.stringify(['sso_connections', VERSION, connectionId]), 'utf8');
}

export function sealClientSecret(config: Pick<Config, 'secret'>, connectionId: string, secret: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), nonce, { authTagLength: 16 });
  cipher.setAAD(aad(connectionId));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, nonce, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** Undefined when it does not open (another SECRET_KEY, or a row altered): the connection is misconfigured. */
export function openClientSecret(config: Pick<Config, 'secret'>, connectionId: string, sealed: string): string | undefined {
  const [version, nonce, body, tag] = sealed.split('.');
  if (version !== VERSION || nonce === undefined || body === undefined || tag === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(config), Buffer.from(nonce, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(aad(connectionId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
