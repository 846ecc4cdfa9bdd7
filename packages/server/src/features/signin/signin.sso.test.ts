import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { createTestUser, dbUnavailable, postSignIn, setCookie, uniqueEmail, useTestApp } from '../../../test/helpers.js';
import { sha256Hex } from '../../lib/crypto.js';
import { CLI_META } from '../audit/audit.service.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { getFailureCount } from '../lockout/lockout.repo.js';
import { claimDomain, createOrganization } from '../organizations/organizations.service.js';

/** A fresh domain per test: claims are global to the database. */
const freshDomain = () => `corp-${sha256Hex(uniqueEmail()).slice(0, 10)}.example`;

describe.skipIf(dbUnavailable)('POST /api/account/signin for a domain whose organisation requires SSO (decision 0022)', () => {
  const t = useTestApp();

  it('answers ssoRequired (409) alike for a member with the right password, a wrong one and an unknown email', async () => {
    const domain = freshDomain();
    await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    const member = await createTestUser(t, { email: `ann@${domain}` });

    const right = await postSignIn(t.app, { email: member.email, password: member.password });
    const wrong = await postSignIn(t.app, { email: member.email, password: 'not the password' });
    const unknown = await postSignIn(t.app, { email: `Nobody@${domain.toUpperCase()}`, password: 'not the password' });
    for (const response of [right, wrong, unknown]) {
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({ errorMessage: 'ssoRequired' });
      expect(response.body).toBe(right.body);
      expect(setCookie(response, 'otter_test')).toBeUndefined();
    }
    const audited = await listAuditEvents(t.db, { emailKey: normalizeEmail(member.email), type: 'signin.failure' });
    expect(audited.map((event) => JSON.parse(event.detail ?? '{}') as unknown)).toEqual([{ reason: 'ssoRequired' }, { reason: 'ssoRequired' }]);
    expect(audited.every((event) => event.user_id === null)).toBe(true);
  });

  it('checks no password there, so nothing is counted towards a lock', async () => {
    const domain = freshDomain();
    await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    const member = await createTestUser(t, { email: `bob@${domain}` });
    for (let i = 0; i < t.config.lockoutThreshold + 1; i++) {
      expect((await postSignIn(t.app, { email: member.email, password: `guess ${i}` })).json()).toEqual({ errorMessage: 'ssoRequired' });
    }
    expect(await getFailureCount(t.db, normalizeEmail(member.email))).toBeUndefined();
  });

  it('signs in with a password again once the organisation no longer requires SSO, and not on a claim without it', async () => {
    const domain = freshDomain();
    const org = await createOrganization(t.deps, { name: `Org ${domain}`, domain, ssoRequired: true }, CLI_META);
    const member = await createTestUser(t, { email: `cy@${domain}` });
    expect((await postSignIn(t.app, member)).statusCode).toBe(409);
    await claimDomain(t.deps, { org: org.id, domain, ssoRequired: false }, CLI_META);
    expect((await postSignIn(t.app, member)).statusCode).toBe(200);
    // A subdomain is a claim of its own (decision 0022): unclaimed, it signs in as usual.
    const sub = await createTestUser(t, { email: `dee@eu.${domain}` });
    await claimDomain(t.deps, { org: org.id, domain, ssoRequired: true }, CLI_META);
    expect((await postSignIn(t.app, sub)).statusCode).toBe(200);
  });
});
