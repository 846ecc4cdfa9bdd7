import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { deferred, json, renderApp, stubFetch, TEST_CONFIG } from '../../test/harness';

const FORGOT = 'POST /api/account/forgotPassword';

async function openForgot(options?: Parameters<typeof renderApp>[1]) {
  renderApp('/forgot-password', options);
  await screen.findByRole('heading', { level: 1, name: 'Reset Password' });
}

describe('forgot password form (spec §2, §5)', () => {
  it('focuses the email field and offers sign-up in the app (local and test)', async () => {
    await openForgot();
    expect(screen.getByText("Enter the email address of your account and we'll send you a link to reset your password.")).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByRole('button', { name: 'Email Reset Password Link' })).toBeDisabled();
    expect(screen.getByRole('link', { name: "Don't have an account? Sign Up" })).toHaveAttribute('href', '/sign-up');
  });

  it.each(['dev', 'staging', 'prod'] as const)('links sign-up to the marketing site in %s', async (env) => {
    await openForgot({ config: { ...TEST_CONFIG, env } });
    expect(screen.getByRole('link', { name: "Don't have an account? Sign Up" })).toHaveAttribute('href', 'https://www.foyer.test/get-started');
  });

  it('checks the email as it is typed for the button, and calls it invalid once the field is left', async () => {
    await openForgot();
    const user = userEvent.setup();
    const email = screen.getByLabelText('Email');
    const submit = screen.getByRole('button', { name: 'Email Reset Password Link' });

    // Typing: no verdict yet on an address that is simply not finished.
    await user.type(email, 'ann');
    expect(email).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText('Email address is not valid')).not.toBeInTheDocument();
    expect(submit).toBeDisabled();

    // Left: now it is judged.
    await user.tab();
    expect(email).toBeInvalid();
    expect(email).toHaveAccessibleDescription('Email address is not valid');
    await user.click(email);

    await user.type(email, '@example.com');
    expect(email).not.toBeInvalid();
    expect(screen.queryByText('Email address is not valid')).not.toBeInTheDocument();
    expect(submit).toBeEnabled();

    await user.clear(email);
    expect(email).not.toHaveAttribute('aria-invalid');
    expect(email).not.toHaveAccessibleDescription();
    expect(submit).toBeDisabled();

    // Emptied, the next address starts unjudged again.
    await user.type(email, 'b');
    expect(email).not.toHaveAttribute('aria-invalid');
  });

  it('judges the email when Enter is pressed, though nothing can be sent', async () => {
    const calls = stubFetch({});
    await openForgot();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@{Enter}');
    expect(screen.getByLabelText('Email')).toBeInvalid();
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Email address is not valid');
    expect(calls).toEqual([]);
  });

  it('offers the way back to sign-in', async () => {
    await openForgot();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
  });
});

describe('an email of an organisation that requires SSO (spec §8)', () => {
  it('keeps the spec text, says what it means for a reset, and points to SSO sign-in with the email', async () => {
    stubFetch({ [FORGOT]: () => json(409, { errorMessage: 'ssoRequired' }) });
    await openForgot();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@acme.example{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.');
    expect(alert).toHaveTextContent('so there is no password to reset here. Sign in with your company’s SSO instead.');
    expect(within(alert).getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', '/sso-sign-in?email=ann%40acme.example');
  });
});

describe('requesting the reset email (spec §4)', () => {
  it('submits with Enter, shows the spinner, then always the done state with the form gone', async () => {
    const answer = deferred<Response>();
    const calls = stubFetch({ [FORGOT]: () => answer.promise });
    await openForgot();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), '  ann@example.com {Enter}');

    const busy = await screen.findByRole('button', { name: 'Sending…' });
    expect(busy).toBeDisabled();
    expect(busy).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByLabelText('Email')).toBeDisabled();
    answer.resolve(json(200, {}));

    const done = await screen.findByRole('status');
    expect(done).toHaveTextContent('We sent a reset email to the address, if an account exists. Some reasons you might not receive an email:');
    expect(
      within(done)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'A spam filter caught the email. Check your spam or junk folder.',
      'Your company uses SSO. Reset your password through your SSO dashboard.',
      'There is no account for this address because you use product version 5 or earlier.',
    ]);
    await waitFor(() => expect(done).toHaveFocus());
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Email Reset Password Link' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(screen.getByRole('link', { name: "Don't have an account? Sign Up" })).toBeInTheDocument();
    expect(calls.map((call) => call.body)).toEqual([{ email: 'ann@example.com' }]);
  });

  it('sends a bot-check token for the forgot_password action when a site key is configured', async () => {
    const execute = vi.fn(() => Promise.resolve('captcha-token'));
    vi.stubGlobal('grecaptcha', { ready: (callback: () => void) => callback(), execute });
    const calls = stubFetch({ [FORGOT]: () => json(200, {}) });
    await openForgot({ config: { ...TEST_CONFIG, reCaptchaSiteKey: 'site-key-1' } });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@example.com');
    await user.click(screen.getByRole('button', { name: 'Email Reset Password Link' }));
    await screen.findByRole('status');
    expect(execute).toHaveBeenCalledWith('site-key-1', { action: 'forgot_password' });
    expect(calls[0]?.body).toEqual({ email: 'ann@example.com', reCaptchaToken: 'captcha-token' });
  });
});

describe('forgot password errors (spec §8)', () => {
  const cases: [string, () => Response | Promise<Response>, string][] = [
    [
      'ssoRequired',
      () => json(409, { errorMessage: 'ssoRequired' }),
      'This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.',
    ],
    ['rateLimitExeeded', () => json(429, { errorMessage: 'rateLimitExeeded' }), 'Too many attempts. Please try again later.'],
    ['reCaptchaFail', () => json(400, { errorMessage: 'reCaptchaFail' }), 'Please verify that you are not a robot.'],
    ['a server fault', () => json(500, { errorMessage: 'unexpectedError' }), 'There was an unexpected error.'],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network Error'],
  ];

  it.each(cases)('%s shows its exact text and the form stays', async (_name, answer, text) => {
    stubFetch({ [FORGOT]: answer });
    await openForgot();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ann@example.com');
    await user.click(screen.getByRole('button', { name: 'Email Reset Password Link' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    // The person goes on in the email field, which the announced alert describes.
    await waitFor(() => expect(screen.getByLabelText('Email')).toHaveFocus());
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription(expect.stringContaining(text));
    expect(screen.getByLabelText('Email')).toHaveValue('ann@example.com');
    expect(screen.getByRole('button', { name: 'Email Reset Password Link' })).toBeEnabled();
    expect(screen.queryByText(/We sent a reset email/)).not.toBeInTheDocument();
  });
});
