import { createHash } from 'node:crypto';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, json, renderApp, stubFetch, stubLocation, type FetchHandler } from '../../test/harness';

const SESSION = 'GET /api/account/session';
const CHANGE = 'POST /api/account/changeEmail';
const ann = { id: 'u1', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', emailVerified: true };

async function openHome(change: FetchHandler) {
  const calls = stubFetch({ [SESSION]: () => json(200, { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' }), [CHANGE]: change });
  renderApp('/home');
  await screen.findByRole('heading', { level: 2, name: 'Change email' });
  return { calls, user: userEvent.setup() };
}

describe('change email on the home page (decision 0023)', () => {
  it('keeps the button disabled until a valid address and the password are typed', async () => {
    const { user } = await openHome(() => json(200, {}));
    const submit = screen.getByRole('button', { name: 'Send Verification Link' });
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('New email'), 'not-an-email');
    await user.type(screen.getByLabelText('Current password'), 'hunter2hunter2');
    expect(submit).toBeDisabled();
    await user.clear(screen.getByLabelText('New email'));
    await user.type(screen.getByLabelText('New email'), 'ann@new.example');
    expect(submit).toBeEnabled();
  });

  it('sends the new address and the password’s SHA-256, then says where the link went and clears the form', async () => {
    const answer = deferred<Response>();
    const { calls, user } = await openHome(() => answer.promise);
    await user.type(screen.getByLabelText('New email'), '  ann@new.example ');
    await user.type(screen.getByLabelText('Current password'), 'hunter2hunter2');
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('button', { name: 'Sending…' })).toHaveAttribute('aria-busy', 'true');
    answer.resolve(json(200, {}));
    expect(await screen.findByText(/for a link to confirm your new email/)).toHaveTextContent(
      'Check ann@new.example for a link to confirm your new email. The link works for 24 hours.',
    );
    const sent = calls.find((call) => call.method === 'POST');
    expect(sent?.body).toEqual({ newEmail: 'ann@new.example', hashPassword: createHash('sha256').update('hunter2hunter2').digest('hex') });
    expect(screen.getByLabelText('New email')).toHaveValue('');
    expect(screen.getByLabelText('Current password')).toHaveValue('');
  });

  it.each([
    ['invalidCredentials', 401, 'That password is not correct.'],
    ['accountLocked', 423, 'Due to too many failed sign in attempts, your account has been locked for 30 minutes.'],
    ['rateLimitExeeded', 429, 'Too many attempts. Please try again later.'],
  ])('explains %s', async (code, status, text) => {
    const { user } = await openHome(() => json(status, { errorMessage: code }));
    await user.type(screen.getByLabelText('New email'), 'ann@new.example');
    await user.type(screen.getByLabelText('Current password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Send Verification Link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.getByLabelText('New email')).toHaveValue('ann@new.example');
  });

  it('sends a visitor whose session ended to sign-in', async () => {
    const { user } = await openHome(() => json(401, { errorMessage: 'notSignedIn' }));
    const { replace } = stubLocation();
    await user.type(screen.getByLabelText('New email'), 'ann@new.example');
    await user.type(screen.getByLabelText('Current password'), 'hunter2hunter2');
    await user.click(screen.getByRole('button', { name: 'Send Verification Link' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/sign-in?from=%2Fhome'));
  });
});
