import { describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { pkceChallenge, randomId, randomToken } from './crypto.js';

describe('random tokens and ids', () => {
  it('are URL-safe and of their full length', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(randomToken(600)).toMatch(/^[A-Za-z0-9_-]{800}$/);
  });

  it('never hand out the same bytes twice, across many draws of the pool', () => {
    // 20,000 draws of 16 and 32 bytes: about 120 pools of 4 KB. A slice handed out twice, or
    // overlapping the next, would show up as a repeated value or a repeated 8-byte run.
    const values = Array.from({ length: 20_000 }, (_, n) => (n % 2 === 0 ? randomId() : randomToken()));
    expect(new Set(values).size).toBe(values.length);
    const runs = new Set<string>();
    for (const value of values) {
      const bytes = Buffer.from(value, 'base64url');
      for (let start = 0; start + 8 <= bytes.length; start += 8) {
        const run = bytes.subarray(start, start + 8).toString('hex');
        expect(runs.has(run)).toBe(false);
        runs.add(run);
      }
    }
  });
});

describe('the PKCE challenge (RFC 7636 S256)', () => {
  it('matches the RFC’s own example (appendix B)', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('matches openid-client’s own computation for fresh verifiers', async () => {
    for (let n = 0; n < 20; n += 1) {
      const verifier = randomToken();
      expect(pkceChallenge(verifier)).toBe(await oidc.calculatePKCECodeChallenge(verifier));
    }
  });
});
