import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { secretBytes } from '../../lib/secret-key.js';
import { SealedMailError, deriveOutboxKey, openMail, outboxKeyOf, sealMail } from './outbox.crypto.js';

const KEY = deriveOutboxKey(Buffer.from('the-right-secret-key-of-32-characters-or-more'));
const WRONG = deriveOutboxKey(Buffer.from('another-secret-key-of-32-characters-or-more'));
const BINDING = { id: 'row-1', to: 'ada@example.com' };
const CONTENT = { subject: 'Reset your Foyer password', text: 'http://localhost:8080/reset-password/abc123', html: '<a href="x">x</a>' };

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env, '/srv/foyer');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('sealed mail (AES-256-GCM, decision 0012)', () => {
  it('opens with the key and binding it was sealed with, and shows nothing of the content', () => {
    const sealed = sealMail(KEY, BINDING, CONTENT);
    expect(openMail(KEY, BINDING, sealed)).toEqual(CONTENT);
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('reset-password');
    // A fresh nonce per row: the same mail twice gives two unrelated texts.
    expect(sealMail(KEY, BINDING, CONTENT)).not.toBe(sealed);
  });

  it('fails closed with a wrong key, on another row, for another recipient, or altered', () => {
    const sealed = sealMail(KEY, BINDING, CONTENT);
    expect(() => openMail(WRONG, BINDING, sealed)).toThrow(SealedMailError);
    expect(() => openMail(KEY, { ...BINDING, id: 'row-2' }, sealed)).toThrow(SealedMailError);
    expect(() => openMail(KEY, { ...BINDING, to: 'attacker@example.com' }, sealed)).toThrow(SealedMailError);
    const [version, nonce, body = '', tag] = sealed.split('.');
    const flipped = `${body.startsWith('A') ? 'B' : 'A'}${body.slice(1)}`;
    expect(() => openMail(KEY, BINDING, [version, nonce, flipped, tag].join('.'))).toThrow(SealedMailError);
    expect(() => openMail(KEY, BINDING, [version, nonce, body, tag?.slice(0, 8)].join('.'))).toThrow(SealedMailError);
    expect(() => openMail(KEY, BINDING, 'unsealed.e30')).toThrow(SealedMailError);
  });
});

describe('SECRET_KEY', () => {
  const deployed = { PUBLIC_URL: 'https://auth.foyer.app' };

  it.each(['dev', 'staging', 'prod'])('is required in %s, and boot fails naming it', (env) => {
    expect(configError({ FOYER_ENV: env, ...deployed })).toContain(`SECRET_KEY: is required when FOYER_ENV=${env}`);
  });

  it('has at least 32 characters, and the message never repeats the value', () => {
    const message = configError({ FOYER_ENV: 'prod', ...deployed, SECRET_KEY: 'short-secret-value' });
    expect(message).toContain('SECRET_KEY: must be at least 32 characters');
    expect(message).not.toContain('short-secret-value');
  });

  it('keys the outbox when set; `test` has its fixed key; local makes one in its data directory', () => {
    const secret = 's'.repeat(32);
    expect(loadConfig({ FOYER_ENV: 'prod', ...deployed, SECRET_KEY: secret }).secret).toEqual({ kind: 'env', value: secret });
    expect(loadConfig({ FOYER_ENV: 'test' }).secret).toEqual({ kind: 'test' });
    expect(loadConfig({ DATABASE_URL: '/var/lib/foyer/foyer.sqlite' }).secret).toEqual({ kind: 'localFile', path: '/var/lib/foyer/secret-key' });
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/foyer' }, '/srv/foyer').secret).toEqual({
      kind: 'localFile',
      path: '/srv/foyer/data/secret-key',
    });
  });

  it('generates the local key once, readable by its owner only, and keeps using it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'foyer-key-'));
    try {
      const config = loadConfig({ DATABASE_URL: join(dir, 'data', 'foyer.sqlite') });
      const sealed = sealMail(outboxKeyOf(config), BINDING, CONTENT);
      const path = join(dir, 'data', 'secret-key');
      expect((await readFile(path, 'utf8')).trim()).toMatch(/^[\w-]{43}$/);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      // Another process on the same data directory (a restart) reads the same key from the file.
      expect(openMail(deriveOutboxKey(Buffer.from((await readFile(path, 'utf8')).trim())), BINDING, sealed)).toEqual(CONTENT);
      expect(secretBytes(config.secret)).toEqual(secretBytes(config.secret));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
