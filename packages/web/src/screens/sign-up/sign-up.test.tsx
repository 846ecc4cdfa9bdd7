import { createHash } from 'node:crypto';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadEstimator } from '../../components/strength-meter/use-password-strength';
import { deferred, json, renderApp, stubFetch, stubLocation, TEST_CONFIG } from '../../test/harness';

const SIGN_UP = 'POST /api/account/signup';
const RESEND = 'POST /api/account/resendVerification';
const STRONG = 'velvet harbor lantern';

// zxcvbn-ts and its word lists are a large module: load it once, before the timed tests.
beforeAll(async () => {
  await loadEstimator();
}, 30_000);

async function fill(user: UserEvent, { firstName = 'Ann', lastName = 'Lee', email = 'ann@example.com', password = STRONG, phone = '' } = {}) {
  if (firstName) await user.type(screen.getByLabelText('First name'), firstName);
  if (lastName) await user.type(screen.getByLabelText('Last name'), lastName);
  if (email) await user.type(screen.getByLabelText('Work email'), email);
  if (password) await user.type(screen.getByLabelText('Password'), password);
  if (phone) await user.type(screen.getByLabelText('(Optional) Let us show you around'), phone);
}

async function openSignUp(path = '/sign-up', options?: Parameters<typeof renderApp>[1]) {
  const result = renderApp(path, options);
  await screen.findByRole('heading', { level: 1, name: 'Create your account' });
  return result;
}

describe('sign-up form (spec §2)', () => {
  it('shows the fields, the buttons, the notice and the way back to sign-in', async () => {
    await openSignUp('/sign-up?plan=organization&utm_source=news');
    expect(screen.getByLabelText('First name')).toHaveFocus();
    expect(screen.getByLabelText('First name')).toHaveAttribute('autocomplete', 'given-name');
    expect(screen.getByLabelText('Last name')).toHaveAttribute('autocomplete', 'family-name');
    expect(screen.getByLabelText('Work email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'new-password');
    const phone = screen.getByLabelText('(Optional) Let us show you around');
    expect(phone).toHaveAttribute('type', 'tel');
    expect(phone).not.toBeRequired();
    expect(screen.getByRole('button', { name: 'Get Started' })).toHaveAttribute('type', 'submit');
    expect(screen.getByRole('link', { name: 'Sign Up with Google' })).toHaveAttribute(
      'href',
      '/social-auth?plan=organization&utm_source=news&signupSource=auth%2Fsign-up%2Fgoogle',
    );
    expect(screen.getByText(/By signing up you agree to our/)).toHaveTextContent('By signing up you agree to our Terms of Service and Privacy Policy.');
    for (const [name, href] of [
      ['Terms of Service (opens in a new tab)', 'https://www.foyer.test/terms'],
      ['Privacy Policy (opens in a new tab)', 'https://www.foyer.test/privacy'],
    ] as const) {
      const link = screen.getByRole('link', { name });
      expect(link).toHaveAttribute('href', href);
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    }
    expect(screen.getByText('Already have an account?', { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(document.title).toBe('Create your account · Foyer');
  });

  it('shows every message on an empty submit, focuses the first field and sends nothing', async () => {
    const calls = stubFetch({});
    await openSignUp();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    expect(screen.getByLabelText('First name')).toHaveAccessibleDescription('First name is required');
    expect(screen.getByLabelText('Last name')).toHaveAccessibleDescription('Last name is required');
    expect(screen.getByLabelText('Work email')).toHaveAccessibleDescription('Email address is not valid');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password must be at least 8 characters');
    expect(screen.getByLabelText('First name')).toBeInvalid();
    await waitFor(() => expect(screen.getByLabelText('First name')).toHaveFocus());
    expect(screen.getByLabelText('(Optional) Let us show you around')).not.toBeInvalid();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('shows a message once its field has been left, not while it is typed', async () => {
    await openSignUp();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('First name'), '   ');
    expect(screen.queryByText('First name is required')).not.toBeInTheDocument();
    await user.tab();
    expect(screen.getByText('First name is required')).toBeInTheDocument();
    expect(screen.queryByText('Last name is required')).not.toBeInTheDocument();

    await user.type(screen.getByLabelText('Work email'), 'ann@');
    await user.tab();
    expect(screen.getByLabelText('Work email')).toHaveAccessibleDescription('Email address is not valid');
    await user.type(screen.getByLabelText('Work email'), 'example.com');
    expect(screen.getByLabelText('Work email')).not.toBeInvalid();

    await user.type(screen.getByLabelText('Password'), 'short');
    await user.tab();
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(expect.stringContaining('Password must be at least 8 characters'));
  });
});

describe('strength meter (spec §5)', () => {
  it('rates the password as it is typed, with the warning and suggestions', async () => {
    await openSignUp();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password'), 'password1');
    const meter = await screen.findByRole('meter', { name: 'Password strength' });
    expect(meter).toHaveAttribute('aria-valuenow', '0');
    expect(meter).toHaveAttribute('aria-valuetext', 'Very weak');
    expect(screen.getByText('Password strength: Very weak')).toBeInTheDocument();
    expect(screen.getByText('This is a commonly used password.')).toBeInTheDocument();
    expect(screen.getByRole('listitem')).toHaveTextContent('Add more words that are less common.');

    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), STRONG);
    await waitFor(() => expect(screen.getByRole('meter')).toHaveAttribute('aria-valuetext', 'Very strong'));
    expect(screen.queryByText('This is a commonly used password.')).not.toBeInTheDocument();
  });

  it('counts the name and email against the password', async () => {
    await openSignUp();
    const user = userEvent.setup();
    await fill(user, { firstName: 'Bartholomew', email: 'bart@example.com', password: 'bartholomew2024' });
    expect(await screen.findByText('Your password should not contain your name, your email address or the name of this site.')).toBeInTheDocument();
  });

  it('refuses a password that does not pass the strength check', async () => {
    const calls = stubFetch({});
    await openSignUp();
    const user = userEvent.setup();
    await fill(user, { password: 'password1' });
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await waitFor(() => expect(screen.getByLabelText('Password')).toBeInvalid());
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(expect.stringContaining('Choose a stronger password.'));
    await waitFor(() => expect(screen.getByLabelText('Password')).toHaveFocus());
    expect(calls).toEqual([]);
  });
});

describe('signing up (spec §4, §7)', () => {
  it('sends what was typed and how the visitor arrived, then shows Check Your Email', async () => {
    document.cookie = 'hubspotutk=hub-123';
    const calls = stubFetch({ [SIGN_UP]: () => json(200, { userId: 'u-1' }) });
    await openSignUp('/sign-up?utm_medium=cpc&utm_campaign=spring&utm_source=news&utm_term=snippets&gclid=g-1&gaId=ga-1&plan=individual&from=%2Fsettings');
    const user = userEvent.setup();
    await fill(user, { firstName: ' Ann ', lastName: ' Lee ', email: ' ann@example.com ', phone: ' +1 555 0100 ' });
    await user.click(screen.getByRole('button', { name: 'Get Started' }));

    const heading = await screen.findByRole('heading', { level: 1, name: 'Check Your Email' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByText(/We sent a verification link to/)).toHaveTextContent(
      'We sent a verification link to ann@example.com. Follow it to finish setting up your account.',
    );
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([SIGN_UP]);
    expect(calls[0]?.body).toEqual({
      deviceId: localStorage.getItem('deviceId'),
      email: 'ann@example.com',
      hashPassword: createHash('sha256').update(STRONG, 'utf8').digest('hex'),
      firstName: 'Ann',
      lastName: 'Lee',
      gaId: 'ga-1',
      utmMedium: 'cpc',
      utmCampaign: 'spring',
      utmSource: 'news',
      utmTerm: 'snippets',
      gclid: 'g-1',
      signupSource: 'auth/sign-up/email',
      phoneNumber: '+1 555 0100',
      initialIntent: 'individual',
      redirectTo: '/settings',
      hubspotToken: 'hub-123',
    });
  });

  it('leaves out what it does not know, and keeps a given sign-up source', async () => {
    const calls = stubFetch({ [SIGN_UP]: () => json(200, { userId: 'u-1' }) });
    await openSignUp('/sign-up?signupSource=auth%2Fsign-up%2Fcommunity&plan=enterprise&from=https%3A%2F%2Fevil.example%2F');
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await screen.findByRole('heading', { name: 'Check Your Email' });
    expect(calls[0]?.body).toEqual({
      deviceId: localStorage.getItem('deviceId'),
      email: 'ann@example.com',
      hashPassword: createHash('sha256').update(STRONG, 'utf8').digest('hex'),
      firstName: 'Ann',
      lastName: 'Lee',
      signupSource: 'auth/sign-up/community',
    });
  });

  it('shows the spinner and disables the inputs while submitting', async () => {
    const answer = deferred<Response>();
    stubFetch({ [SIGN_UP]: () => answer.promise });
    await openSignUp();
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    const busy = await screen.findByRole('button', { name: 'Creating your account…' });
    expect(busy).toBeDisabled();
    expect(busy).toHaveAttribute('aria-busy', 'true');
    for (const label of ['First name', 'Last name', 'Work email', 'Password', '(Optional) Let us show you around']) {
      expect(screen.getByLabelText(label)).toBeDisabled();
    }
    answer.resolve(json(200, { userId: 'u-1' }));
    await screen.findByRole('heading', { name: 'Check Your Email' });
  });

  it.each([
    ['/welcome?x=1', '/welcome?x=1'],
    ['https://app.foyer.test/groups', 'https://app.foyer.test/groups'],
  ])('goes to the server-given address %s', async (redirectUrl, expected) => {
    stubFetch({ [SIGN_UP]: () => json(200, { userId: 'u-1', redirectUrl }) });
    const { assign } = stubLocation();
    await openSignUp();
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(expected));
    expect(screen.queryByRole('heading', { name: 'Check Your Email' })).not.toBeInTheDocument();
  });

  it('ignores a server-given address outside the allow-list', async () => {
    stubFetch({ [SIGN_UP]: () => json(200, { userId: 'u-1', redirectUrl: '//evil.example' }) });
    const { assign } = stubLocation();
    await openSignUp();
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await screen.findByRole('heading', { name: 'Check Your Email' });
    expect(assign).not.toHaveBeenCalled();
  });
});

describe('sign-up errors (spec §8)', () => {
  const cases: [string, () => Response | Promise<Response>, string][] = [
    [
      'ssoRequired',
      () => json(409, { errorMessage: 'ssoRequired' }),
      'This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.',
    ],
    ['rateLimitExeeded', () => json(429, { errorMessage: 'rateLimitExeeded' }), 'Too many attempts. Please try again later.'],
    ['reCaptchaFail', () => json(400, { errorMessage: 'reCaptchaFail' }), 'Please verify that you are not a robot.'],
    ['invalidRequest', () => json(400, { errorMessage: 'invalidRequest' }), 'There was an unexpected error.'],
    ['a server fault', () => json(500, { errorMessage: 'unexpectedError' }), 'There was an unexpected error.'],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network Error'],
  ];

  it.each(cases)('%s shows its exact text and keeps the form', async (_name, answer, text) => {
    stubFetch({ [SIGN_UP]: answer });
    await openSignUp();
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    // The person goes on in the email field, which the announced alert describes.
    await waitFor(() => expect(screen.getByLabelText('Work email')).toHaveFocus());
    expect(screen.getByLabelText('Work email')).toHaveAccessibleDescription(expect.stringContaining(text));
    expect(screen.getByRole('button', { name: 'Get Started' })).toBeEnabled();
    expect(screen.getByLabelText('Work email')).toHaveValue('ann@example.com');
  });
});

describe('Check Your Email (spec §2, §4)', () => {
  async function signUp() {
    const calls = stubFetch({
      [SIGN_UP]: () => json(200, { userId: 'u-1' }),
      [RESEND]: () => json(200, {}),
    });
    await openSignUp();
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await screen.findByRole('heading', { name: 'Check Your Email' });
    return { calls, user };
  }

  it('resends the email: idle → sending → sent, and the link is gone once sent', async () => {
    const answer = deferred<Response>();
    const { calls, user } = await signUp();
    stubFetch({ [RESEND]: () => answer.promise });
    expect(screen.getByText("Didn't get it?")).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Click to resend.' }));
    expect(screen.getByRole('button', { name: 'Click to resend.' })).toHaveAttribute('aria-busy', 'true');
    answer.resolve(json(200, {}));

    const sent = await screen.findByText('Email sent!');
    expect(within(screen.getByRole('status')).getByText('Email sent!')).toBe(sent);
    await waitFor(() => expect(sent.closest('p')).toHaveFocus());
    expect(screen.queryByRole('button', { name: 'Click to resend.' })).not.toBeInTheDocument();
    expect(calls.map((call) => call.url)).toEqual(['/api/account/signup']);
  });

  it('lets the person verify later (decision 0023): the reminder keeps the address and the resend', async () => {
    const { calls, user } = await signUp();
    await user.click(screen.getByRole('button', { name: 'Verify later' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'Verify Your Email Later' });
    // The screen moves focus to its heading once it has painted.
    await waitFor(() => expect(heading).toHaveFocus());
    expect(window.location.pathname).toBe('/defer-email-verification');
    // The address travels in the history entry, never in the address bar.
    expect(window.location.search).toBe('');
    expect(screen.getByText(/The link we sent to/)).toHaveTextContent('The link we sent to ann@example.com works for 24 hours');
    expect(screen.getByText(/Until you verify, signing in with this email reminds you/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Click to resend.' }));
    await screen.findByText('Email sent!');
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: '/api/account/resendVerification', body: { email: 'ann@example.com', userId: 'u-1' } });
    expect(screen.getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/sign-in');
    // Two screens and a resend: more steps than its neighbours.
  }, 15_000);

  it('sends the email and user id to resendVerification', async () => {
    const { calls, user } = await signUp();
    await user.click(screen.getByRole('button', { name: 'Click to resend.' }));
    await screen.findByText('Email sent!');
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: '/api/account/resendVerification', body: { email: 'ann@example.com', userId: 'u-1' } });
  });

  it('says so when resending is rate limited, and offers the link again', async () => {
    const { user } = await signUp();
    stubFetch({ [RESEND]: () => json(429, { errorMessage: 'rateLimitExeeded' }) });
    await user.click(screen.getByRole('button', { name: 'Click to resend.' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many attempts. Please try again later.');
    expect(screen.getByRole('button', { name: 'Click to resend.' })).toBeEnabled();
    expect(screen.queryByText('Email sent!')).not.toBeInTheDocument();
  });

  it('starts over with an empty form', async () => {
    const { user } = await signUp();
    await user.click(screen.getByRole('button', { name: 'Start over' }));
    await screen.findByRole('heading', { name: 'Create your account' });
    for (const label of ['First name', 'Last name', 'Work email', 'Password', '(Optional) Let us show you around']) {
      expect(screen.getByLabelText(label)).toHaveValue('');
    }
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('First name is required')).not.toBeInTheDocument();
  });
});

describe('where sign-up leads (spec §2, §4)', () => {
  const prod = { ...TEST_CONFIG, env: 'prod' as const };

  it('sends /sign-up to the marketing get-started page in production, keeping the query', async () => {
    const { replace } = stubLocation();
    renderApp('/sign-up?plan=organization&utm_source=news', { config: prod });
    await waitFor(() => expect(replace).toHaveBeenCalledWith('https://www.foyer.test/get-started?plan=organization&utm_source=news'));
    expect(screen.queryByLabelText('First name')).not.toBeInTheDocument();
  });

  it.each([
    ['?chrome=1&plan=individual', 'https://www.foyer.test/get-started-with-chrome?chrome=1&plan=individual'],
    ['?signupSource=auth%2Fsign-up%2Fcommunity', 'https://www.foyer.test/get-started-with-community?signupSource=auth%2Fsign-up%2Fcommunity'],
    ['?chrome=0', 'https://www.foyer.test/get-started?chrome=0'],
  ])('sends %s to its own get-started place in production', async (query, target) => {
    const { replace } = stubLocation();
    renderApp(`/sign-up${query}`, { config: prod });
    await waitFor(() => expect(replace).toHaveBeenCalledWith(target));
  });

  it('never redirects /sign-up-old', async () => {
    const { replace } = stubLocation();
    await openSignUp('/sign-up-old?plan=organization', { config: prod });
    expect(replace).not.toHaveBeenCalled();
    expect(screen.getByLabelText('First name')).toBeInTheDocument();
  });

  it.each(['/sign-up', '/sign-up-old'])('%s bounces to the default home while a forum sign-in is pending', (path) => {
    localStorage.setItem('discoursePending', 'true');
    const { replace } = stubLocation();
    renderApp(path);
    expect(replace).toHaveBeenCalledWith('/home');
    expect(screen.queryByLabelText('First name')).not.toBeInTheDocument();
    // Once per flag: back here without a session, the form stays (no /home ↔ sign-up loop).
    expect(localStorage.getItem('discoursePending')).toBeNull();
  });
});

describe('invisible bot check (spec §5)', () => {
  const withKey = { ...TEST_CONFIG, reCaptchaSiteKey: 'site-key-1' };

  it('sends a token for the signup action when a site key is configured', async () => {
    const execute = vi.fn(() => Promise.resolve('captcha-token'));
    vi.stubGlobal('grecaptcha', { ready: (callback: () => void) => callback(), execute });
    const calls = stubFetch({ [SIGN_UP]: () => json(200, { userId: 'u-1' }) });
    await openSignUp('/sign-up', { config: withKey });
    const user = userEvent.setup();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Get Started' }));
    await screen.findByRole('heading', { name: 'Check Your Email' });
    expect(execute).toHaveBeenCalledWith('site-key-1', { action: 'signup' });
    expect(calls[0]?.body).toMatchObject({ reCaptchaToken: 'captcha-token' });
  });

  it("loads Google's script only when a site key is configured", async () => {
    const { unmount } = await openSignUp();
    expect(document.querySelector('script[src*="recaptcha"]')).toBeNull();
    unmount();
    await openSignUp('/sign-up', { config: withKey });
    // Added by the form as it opens, which on a busy machine can follow the heading.
    await waitFor(() =>
      expect(document.querySelector('script[src*="recaptcha"]')).toHaveAttribute('src', 'https://www.google.com/recaptcha/api.js?render=site-key-1'),
    );
  });
});
