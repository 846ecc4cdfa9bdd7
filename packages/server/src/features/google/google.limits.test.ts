import { describe, expect, it } from 'vitest';
import { SOCIAL_AUTH_URL, useGoogleTestApp } from '../../../test/google.js';
import { MINUTE, dbUnavailable, xsrf } from '../../../test/helpers.js';
import { limiterTime } from '../../../test/limiter-time.js';
import { randomAddress } from '../../../test/password.js';
import { randomToken } from '../../lib/crypto.js';

describe.skipIf(dbUnavailable)('Google start rate limit (decision 0019)', () => {
  const t = useGoogleTestApp();

  const start = (remoteAddress: string) => {
    const pair = xsrf();
    return t.app.inject({
      method: 'POST',
      url: SOCIAL_AUTH_URL,
      cookies: pair.cookies,
      headers: pair.headers,
      payload: { state: randomToken() },
      remoteAddress,
    });
  };
  const stateRows = async () => (await t.db.selectFrom('social_auth_states').select('id').execute()).length;

  it('allows 300 starts per client address in 15 minutes, then answers 429 with Retry-After and writes no state', async () => {
    const time = limiterTime(t);
    const office = randomAddress();
    const rowsBefore = await stateRows();
    for (let i = 0; i < 300; i++) expect((await start(office)).statusCode).toBe(200);
    expect(await stateRows()).toBe(rowsBefore + 300);

    const refused = await start(office);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(refused.headers['retry-after']).toBe(String(15 * 60));
    expect(await stateRows()).toBe(rowsBefore + 300);

    // Another address is not affected; this one is again after the window.
    expect((await start(randomAddress())).statusCode).toBe(200);
    time.advance(15 * MINUTE);
    expect((await start(office)).statusCode).toBe(200);
  });
});
