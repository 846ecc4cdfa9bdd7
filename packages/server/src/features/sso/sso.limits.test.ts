import { describe, expect, it } from 'vitest';
import { MINUTE, dbUnavailable, useTestApp, xsrf } from '../../../test/helpers.js';
import { limiterTime } from '../../../test/limiter-time.js';
import { randomAddress } from '../../../test/password.js';
import { SSO_START_URL, landing, samlOrganization } from '../../../test/sso.js';
import { SSO_ANSWER_PER_IP } from './sso.limits.js';

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

  it(`allows ${SSO_ANSWER_PER_IP.limit} provider answers per client address in 15 minutes, then 429 before anything is read or audited`, async () => {
    const corp = await samlOrganization(t);
    const attacker = randomAddress();
    const auditRows = async () => (await t.db.selectFrom('audit_events').select('id').execute()).length;
    const forged = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: corp.urls.acs,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `SAMLResponse=${encodeURIComponent(Buffer.from('<forged/>').toString('base64'))}`,
        remoteAddress,
      });
    const callback = (remoteAddress: string) =>
      t.app.inject({ method: 'GET', url: `/sso/oidc/${corp.connection.id}/callback?code=x&state=y`, remoteAddress });

    // Each forged answer is refused on the landing page with an audit row; assertion consumer and
    // callback count together.
    const before = await auditRows();
    for (let i = 0; i < SSO_ANSWER_PER_IP.limit; i++) {
      const response = await (i % 2 === 0 ? forged(attacker) : callback(attacker));
      expect(response.statusCode).toBe(303);
      expect(landing(response).get('code')).not.toBeNull();
    }
    expect(await auditRows()).toBe(before + SSO_ANSWER_PER_IP.limit);

    for (const refused of [await forged(attacker), await callback(attacker)]) {
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ errorMessage: 'rateLimitExeeded' });
      // What is left of the window that the first answer opened.
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    }
    expect(await auditRows()).toBe(before + SSO_ANSWER_PER_IP.limit);

    // Another address is not affected.
    const other = await forged(randomAddress());
    expect(other.statusCode).toBe(303);
    expect(landing(other).get('code')).toBe('1002');
  });
});
