import { ROUTES } from '@foyer/contract/core';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { json, renderApp, stubFetch, TEST_CONFIG } from './test/harness';

/** Routes whose screens have shipped, with the heading each opens with. */
const LIVE_PATHS: [string, string][] = [
  ['/sign-up', 'Create your account'],
  ['/sign-up-old', 'Create your account'],
  ['/forgot-password', 'Reset Password'],
  ['/reset-password/abc', 'Reset Password'],
  ['/verify-email/abc', 'Complete Account Setup'],
  ['/setup-account/abc', 'Complete Account Setup'],
  ['/social-auth', 'Continue with Google'],
  ['/social-auth-callback', 'Continue with Google'],
  ['/sso-sign-in', 'Sign in with SSO'],
  ['/sso-landing', "We couldn't sign you in with SSO"],
  ['/ssol/abc', 'Signing in with SSO'],
  ['/discourse-sso', 'Join the Foyer Community'],
  ['/discourse-terms', 'Community terms'],
  ['/defer-email-verification', 'Verify Your Email Later'],
  ['/verify-new-email/abc', 'Verify New Email'],
];

describe('routes (spec §2)', () => {
  it('covers every auth route of the contract', () => {
    const contractPaths = Object.values(ROUTES).map((path) => path.replace(/:[A-Za-z]+/, 'abc'));
    expect([...LIVE_PATHS.map(([path]) => path), '/sign-in'].sort()).toEqual(contractPaths.sort());
  });

  it('sends the root to sign-in', async () => {
    const { location } = renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
    expect(location.current).toBe('/sign-in');
  });

  it('sends an unknown path to sign-in, keeping nothing', async () => {
    const { location } = renderApp('/no/such/page?from=%2Fsettings');
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
    expect(location.current).toBe('/sign-in');
  });

  it.each(LIVE_PATHS)('%s opens its screen, "%s"', async (path, heading) => {
    stubFetch({
      'GET /api/account/setupAccount/fields/abc': () => json(200, { email: 'ann@example.com', fields: ['firstName'] }),
      'POST /api/account/verifyNewEmail': () => json(400, { errorMessage: 'invalidToken' }),
    });
    const { location } = renderApp(path);
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: heading })).toBeInTheDocument());
    expect(screen.queryByText('Not available yet')).not.toBeInTheDocument();
    expect(location.current).toBe(path);
  });

  it.each(['/discourse-sso?sso=x&sig=y', '/discourse-terms'])('%s falls back to sign-in while the forum flag is off', async (path) => {
    const config = { ...TEST_CONFIG, flags: { ...TEST_CONFIG.flags, 'discourse-sso': false } };
    const { location } = renderApp(path, { config });
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeInTheDocument();
    expect(location.current).toBe('/sign-in');
  });

  it('sets the document title from the screen heading', async () => {
    renderApp('/sign-in');
    await screen.findByRole('heading', { name: 'Sign In' });
    expect(document.title).toBe('Sign In · Foyer');
  });
});
