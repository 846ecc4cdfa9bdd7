import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp, stubFetch, TEST_CONFIG } from '../../test/harness';

// Arriving from the sign-up's 'Check Your Email' step is covered in sign-up.test.tsx.
describe('/defer-email-verification (decision 0023)', () => {
  it('opened on its own: explains verifying later and keeps the reminder, without a resend it cannot address', async () => {
    const calls = stubFetch({});
    renderApp('/defer-email-verification');
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify Your Email Later' })).toBeInTheDocument();
    expect(screen.getByText(/The link we sent you works for 24 hours/)).toBeInTheDocument();
    expect(screen.getByText(/Until you verify, signing in with this email reminds you and offers a new link/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Click to resend.' })).not.toBeInTheDocument();
    // Locally (and in tests) no marketing site runs beside Foyer: Continue goes to sign-in.
    expect(screen.getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/sign-in');
    expect(calls).toEqual([]);
  });

  it('continues to the product’s public site when deployed', async () => {
    stubFetch({});
    renderApp('/defer-email-verification', { config: { ...TEST_CONFIG, env: 'prod' } });
    expect(await screen.findByRole('link', { name: 'Continue' })).toHaveAttribute('href', 'https://www.foyer.test/');
  });
});
