import { createHash } from 'node:crypto';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRouter } from 'react-router';
import { loadEstimator } from '../../components/strength-meter/use-password-strength';
import { deferred, json, Providers, renderApp, stubFetch, type FetchHandler, type RecordedCall } from '../../test/harness';
import { ResetPasswordScreen } from './reset-password';

const RESET = 'POST /api/account/resetPassword';
const TOKEN = 'reset-token-0123456789abcdef';
const CHECK = `GET /api/account/resetPassword/check/${TOKEN}`;
const EMAIL = 'ann-marie@example.com';
const STRONG = 'mango tractor 42';
const DEAD = 'This link is invalid or has expired. Click here to get a new one.';

/** The check on open answers the account (decision 0020) unless told otherwise; the POST as given. */
function stubReset(reset?: FetchHandler, check: FetchHandler = () => json(200, { email: EMAIL })) {
  return stubFetch({ [CHECK]: check, ...(reset === undefined ? {} : { [RESET]: reset }) });
}

const posts = (calls: RecordedCall[]) => calls.filter((call) => call.method === 'POST');

beforeAll(async () => {
  await loadEstimator();
}, 30_000);

async function openReset() {
  renderApp(`/reset-password/${TOKEN}`);
  await screen.findByLabelText('New password');
}

describe('reset password form (spec §2, §5)', () => {
  it('shows the new-password field with its toggle and the Change Password button', async () => {
    await openReset();
    const field = screen.getByLabelText('New password');
    expect(field).toHaveAttribute('type', 'password');
    expect(field).toHaveAttribute('autocomplete', 'new-password');
    expect(field).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Show password' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Change Password' })).toHaveAttribute('type', 'submit');
    expect(screen.getByText('Choose a new password for your account.')).toBeInTheDocument();
  });

  it('shows the strength of the new password', async () => {
    await openReset();
    await userEvent.setup().type(screen.getByLabelText('New password'), 'qwertyuiop');
    const meter = await screen.findByRole('meter', { name: 'Password strength' });
    expect(meter).toHaveAttribute('aria-valuetext', 'Very weak');
    expect(screen.getByText('This is a frequently used password.')).toBeInTheDocument();
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription(expect.stringContaining('Password strength: Very weak'));
  });

  it.each([
    ['short', 'Password must be at least 8 characters'],
    ['password1', 'Choose a stronger password.'],
  ])('refuses %s with "%s" and sends nothing', async (password, message) => {
    const calls = stubReset();
    await openReset();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), `${password}{Enter}`);
    await waitFor(() => expect(screen.getByLabelText('New password')).toHaveAccessibleDescription(expect.stringContaining(message)));
    expect(screen.getByLabelText('New password')).toBeInvalid();
    expect(posts(calls)).toEqual([]);
  });
});

describe('changing the password (spec §4)', () => {
  it('submits with Enter, shows the spinner, then says so in place of the form', async () => {
    const answer = deferred<Response>();
    const calls = stubReset(() => answer.promise);
    await openReset();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), `${STRONG}{Enter}`);

    const busy = await screen.findByRole('button', { name: 'Changing password…' });
    expect(busy).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByLabelText('New password')).toBeDisabled();
    answer.resolve(json(200, {}));

    const success = await screen.findByRole('status');
    expect(success).toHaveTextContent('Your password was updated. Click here to sign in');
    expect(within(success).getByRole('link', { name: 'Click here to sign in' })).toHaveAttribute('href', '/sign-in');
    await waitFor(() => expect(success).toHaveFocus());
    // The link is spent: the cleared field goes with its form.
    expect(screen.queryByLabelText('New password')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Change Password' })).not.toBeInTheDocument();
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
    expect(posts(calls)).toHaveLength(1);
    expect(posts(calls)[0]?.body).toEqual({ token: TOKEN, hashPassword: createHash('sha256').update(STRONG, 'utf8').digest('hex') });
  });
});

describe('reset password errors (spec §8)', () => {
  it('recentPassword asks for another password', async () => {
    stubReset(() => json(409, { errorMessage: 'recentPassword' }));
    await openReset();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), STRONG);
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('You cannot use a previous password.');
    // The person goes on in the field, its text selected to retype; the alert describes it.
    const field = screen.getByLabelText('New password');
    await waitFor(() => expect(field).toHaveFocus());
    expect(field).toHaveAccessibleDescription(expect.stringContaining('You cannot use a previous password.'));
    expect(field).toHaveValue(STRONG);
    expect((field as HTMLInputElement).selectionEnd).toBe(STRONG.length);
  });

  it.each([
    ['invalidToken', 400],
    ['tokenExpired', 410],
    ['invalidRequest', 400],
  ])('%s says the link is dead and links to a new one', async (code, status) => {
    stubReset(() => json(status, { errorMessage: code }));
    await openReset();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), STRONG);
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(DEAD);
    expect(within(alert).getByRole('link', { name: 'Click here to get a new one.' })).toHaveAttribute('href', '/forgot-password');
    // No password is chosen for a link that cannot take it: the form is gone, focus on the alert.
    expect(screen.queryByLabelText('New password')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Change Password' })).not.toBeInTheDocument();
    await waitFor(() => expect(alert).toHaveFocus());
  });

  it.each([
    ['rateLimitExeeded', () => json(429, { errorMessage: 'rateLimitExeeded' }), 'Too many attempts. Please try again later.'],
    ['a server fault', () => json(500, { errorMessage: 'unexpectedError' }), 'There was an unexpected error.'],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network Error'],
  ])('%s shows its exact text', async (_name, answer, text) => {
    stubReset(answer);
    await openReset();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('New password'), STRONG);
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.getByRole('button', { name: 'Change Password' })).toBeEnabled();
  });
});

describe('password managers (decision 0020)', () => {
  it('marks the field as a new password and, with no account known, adds no username', async () => {
    await openReset();
    expect(screen.getByLabelText('New password')).toHaveAttribute('autocomplete', 'new-password');
    expect(document.querySelector('input[autocomplete="username"]')).toBeNull();
  });

  it("carries the account's email in a hidden username field once the screen knows it", () => {
    const { container } = render(
      <Providers>
        <MemoryRouter>
          <ResetPasswordScreen token={TOKEN} email="ann@example.com" />
        </MemoryRouter>
      </Providers>,
    );
    const username = container.querySelector('form input[autocomplete="username"]');
    expect(username).toHaveValue('ann@example.com');
    expect(username).not.toBeVisible();
    expect(screen.getByLabelText('New password')).toHaveFocus();
  });
});

describe('the link is checked when the page opens (decision 0020)', () => {
  it('spends nothing while checking, then names the account and gives it to password managers', async () => {
    const answer = deferred<Response>();
    const calls = stubReset(undefined, () => answer.promise);
    renderApp(`/reset-password/${TOKEN}`);
    expect(await screen.findByRole('status')).toHaveTextContent('Checking your link…');
    expect(screen.queryByLabelText('New password')).not.toBeInTheDocument();
    answer.resolve(json(200, { email: EMAIL }));
    const field = await screen.findByLabelText('New password');
    expect(screen.getByText(/Choose a new password for/)).toHaveTextContent(`Choose a new password for ${EMAIL}.`);
    expect(document.querySelector('form input[autocomplete="username"]')).toHaveValue(EMAIL);
    await waitFor(() => expect(field).toHaveFocus());
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([CHECK]);
  });

  it.each([
    ['invalidToken', 400],
    ['tokenExpired', 410],
    ['invalidRequest', 400],
  ])('%s on open shows the dead link before anyone types a password', async (code, status) => {
    const calls = stubReset(undefined, () => json(status, { errorMessage: code }));
    renderApp(`/reset-password/${TOKEN}`);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(DEAD);
    expect(within(alert).getByRole('link', { name: 'Click here to get a new one.' })).toHaveAttribute('href', '/forgot-password');
    expect(screen.queryByLabelText('New password')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Change Password' })).not.toBeInTheDocument();
    await waitFor(() => expect(alert).toHaveFocus());
    expect(posts(calls)).toEqual([]);
  });

  it('a check that cannot be made leaves the form, without an account', async () => {
    stubReset(undefined, () => Promise.reject(new TypeError('Failed to fetch')));
    await openReset();
    expect(screen.getByText('Choose a new password for your account.')).toBeInTheDocument();
    expect(document.querySelector('input[autocomplete="username"]')).toBeNull();
  });
});
