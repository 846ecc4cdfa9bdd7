import { describe, expect, it } from 'vitest';
import { MINUTE, dbUnavailable, useTestApp, xsrf } from '../../../test/helpers.js';
import { limiterTime } from '../../../test/limiter-time.js';
import { randomAddress } from '../../../test/password.js';
import { SSO_START_URL, samlOrganization } from '../../../test/sso.js';

describe.skipIf(dbUnavailable)('SSO start rate limits (decisions 0010 and 0022)', () => {
  const t = useTestApp();

  const start = (email: string, remoteAddress: string) => {
    const pair = xsrf();
    return t.app.inject({ method: 'POST', url: SSO_START_URL, cookies: pair.cookies, headers: pair.headers, payload: { email }, remoteAddress });
  };
  const requestRows = async () => (await t.db.selectFrom('sso_requests').select('id').execute()).length;

  it('allows 10 starts per email in 15 minutes, from any address, then answers 429 with Retry-After and writes no request', async () => {
    const time = limiterTime(t);
    const corp = await samlOrganization(t);
    const email = corp.email('ann');
    const rowsBefore = await requestRows();
    for (let i = 0; i < 10; i++) expect((await start(i % 2 === 0 ? email : email.toUpperCase(), randomAddress())).statusCode).toBe(200);
    expect(await requestRows()).toBe(rowsBefore + 10);

    const refused = await start(email, randomAddress());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(refused.headers['retry-after']).toBe(String(15 * 60));
    expect(await requestRows()).toBe(rowsBefore + 10);

    // Another person of the same organisation is not affected; the email is again after the window.
    expect((await start(corp.email('bob'), randomAddress())).statusCode).toBe(200);
    time.advance(15 * MINUTE);
    expect((await start(email, randomAddress())).statusCode).toBe(200);
  });

  it('allows 300 starts per client address in 15 minutes, whatever the emails, then 429', async () => {
    const corp = await samlOrganization(t);
    const office = randomAddress();
    const rowsBefore = await requestRows();
    // Unknown domains answer 404 but count all the same: the limit comes before any lookup.
    for (let i = 0; i < 300; i++) expect((await start(`p${i}@unknown-${i}.example`, office)).statusCode).toBe(404);
    const refused = await start(corp.email('ann'), office);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
    expect(await requestRows()).toBe(rowsBefore);
    expect((await start(corp.email('ann'), randomAddress())).statusCode).toBe(200);
  });
});
