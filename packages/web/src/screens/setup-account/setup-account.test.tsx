import { createHash } from 'node:crypto';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRouter } from 'react-router';
import { loadEstimator } from '../../components/strength-meter/use-password-strength';
import { deferred, json, Providers, renderApp, SESSION, stubFetch, stubLocation, type FetchHandler } from '../../test/harness';
import { SetupForm } from './setup-form';
import { setupFailure } from './setup-request';

const TOKEN = 'setup-token-0123456789abcdef';
const EMAIL = 'ann-marie@example.com';
const FIELDS = `GET /api/account/setupAccount/fields/${TOKEN}`;
const SETUP = 'POST /api/account/setupAccount';
const STRONG = 'velvet harbor lantern';
const ALL_FIELDS = ['firstName', 'lastName', 'hashPassword', 'phoneNumber'];

beforeAll(async () => {
  await loadEstimator();
}, 30_000);

function stubSetup(fields: FetchHandler, setup: FetchHandler = () => json(200, { otter: 'session' })) {
  return stubFetch({ [FIELDS]: fields, [SETUP]: setup });
}

async function openForm(path = `/setup-account/${TOKEN}`) {
  renderApp(path);
  await screen.findByRole('button', { name: 'Complete Setup' });
}

describe('while the fields are looked up (spec §4)', () => {
  it('shows skeleton placeholders in a busy region, with a loading text for screen readers', async () => {
    // StrictMode asks twice (the first request is abandoned): each gets its own answer.
    const gate = deferred<void>();
    stubSetup(async () => {
      await gate.promise;
      return json(200, { email: EMAIL, fields: ['firstName'] });
    });
    renderApp(`/setup-account/${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Complete Account Setup' })).toBeInTheDocument();
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('Checking your link…');
    expect(status.closest('[aria-busy="true"]')).not.toBeNull();
    expect(document.querySelector('.skeleton-stack')).toHaveAttribute('aria-hidden', 'true');
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    gate.resolve();
    await screen.findByLabelText('First name');
    expect(document.querySelector('[aria-busy="true"]')).toBeNull();
  });
});

describe('the setup form (spec §2, §5)', () => {
  it('asks for every missing field', async () => {
    stubSetup(() => json(200, { email: EMAIL, fields: ALL_FIELDS }));
    await openForm();
    expect(screen.getByText('Tell us a little more to finish setting up your account.')).toBeInTheDocument();
    expect(screen.getByLabelText('First name')).toBeInTheDocument();
    expect(screen.getByLabelText('Last name')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(screen.getByLabelText('(Optional) Let us show you around')).not.toBeRequired();
    // The first field has focus; the account's email goes to password managers (decision 0020).
    expect(screen.getByLabelText('First name')).toHaveFocus();
    expect(document.querySelector('form input[autocomplete="username"]')).toHaveValue(EMAIL);
  });

  it.each([
    [['hashPassword', 'phoneNumber'], 'Password'],
    [['lastName', 'hashPassword'], 'Last name'],
  ])('with %j asked, focuses %s', async (fields, label) => {
    stubSetup(() => json(200, { email: EMAIL, fields }));
    await openForm();
    await waitFor(() => expect(screen.getByLabelText(label)).toHaveFocus());
  });

  it("carries the account's email in a hidden username field once the screen knows it", () => {
    const { container } = render(
      <Providers>
        <MemoryRouter>
          <SetupForm token={TOKEN} asked={['hashPassword']} onDeadLink={() => undefined} email="ann@example.com" />
        </MemoryRouter>
      </Providers>,
    );
    const username = container.querySelector('form input[autocomplete="username"]');
    expect(username).toHaveValue('ann@example.com');
    expect(username).not.toBeVisible();
    expect(screen.getByLabelText('Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(screen.getByLabelText('Password')).toHaveFocus();
  });

  it('asks only for the missing fields and checks only those', async () => {
    const calls = stubSetup(() => json(200, { email: EMAIL, fields: ['lastName'] }));
    await openForm();
    expect(screen.queryByLabelText('First name')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('(Optional) Let us show you around')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Complete Setup' }));
    expect(screen.getByLabelText('Last name')).toHaveAccessibleDescription('Last name is required');
    await waitFor(() => expect(screen.getByLabelText('Last name')).toHaveFocus());
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('shows the strength meter and refuses a weak password', async () => {
    const calls = stubSetup(() => json(200, { email: EMAIL, fields: ['hashPassword'] }));
    await openForm();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password'), 'password1');
    expect(await screen.findByRole('meter', { name: 'Password strength' })).toHaveAttribute('aria-valuetext', 'Very weak');
    await user.click(screen.getByRole('button', { name: 'Complete Setup' }));
    await waitFor(() => expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(expect.stringContaining('Choose a stronger password.')));
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('sends the answers with the token, device id, attribution and stored flags, then goes to the given address', async () => {
    localStorage.setItem('isMarketingTest', 'true');
    document.cookie = 'hubspotutk=hub-123';
    const answer = deferred<Response>();
    const calls = stubSetup(
      () => json(200, { email: EMAIL, fields: ALL_FIELDS }),
      () => answer.promise,
    );
    const { assign } = stubLocation();
    await openForm(`/setup-account/${TOKEN}?utm_source=news&gclid=g-1&plan=organization`);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('First name'), ' Ann ');
    await user.type(screen.getByLabelText('Last name'), ' Lee ');
    await user.type(screen.getByLabelText('Password'), STRONG);
    await user.type(screen.getByLabelText('(Optional) Let us show you around'), '555 0100');
    await user.click(screen.getByRole('button', { name: 'Complete Setup' }));

    const busy = await screen.findByRole('button', { name: 'Completing setup…' });
    expect(busy).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByLabelText('First name')).toBeDisabled();
    answer.resolve(json(200, { otter: 'session', redirectUrl: '/welcome' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/welcome'));

    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      token: TOKEN,
      deviceId: localStorage.getItem('deviceId'),
      utmSource: 'news',
      gclid: 'g-1',
      initialIntent: 'organization',
      hubspotToken: 'hub-123',
      isMarketingTest: true,
      firstName: 'Ann',
      lastName: 'Lee',
      hashPassword: createHash('sha256').update(STRONG, 'utf8').digest('hex'),
      phoneNumber: '555 0100',
    });
    // The server set the session cookie; the page keeps no token of its own.
    expect(localStorage.getItem('otter')).toBeNull();
  });

  it('goes to the default home when the given address is outside the allow-list', async () => {
    stubSetup(
      () => json(200, { email: EMAIL, fields: ['firstName'] }),
      () => json(200, { otter: 's', redirectUrl: 'https://evil.example/' }),
    );
    const { assign } = stubLocation();
    await openForm(`/verify-email/${TOKEN}`);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('First name'), 'Ann{Enter}');
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
  });
});

describe('nothing to ask (spec §4)', () => {
  it.each([[[]], [['phoneNumber']]])('submits at once when the missing fields are %j', async (fields) => {
    const answer = deferred<Response>();
    const calls = stubSetup(
      () => json(200, { email: EMAIL, fields }),
      () => answer.promise,
    );
    const { assign } = stubLocation();
    renderApp(`/verify-email/${TOKEN}?utm_campaign=spring`);
    expect(await screen.findByText('Finishing your account setup…')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Complete Setup' })).not.toBeInTheDocument();
    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
    const posts = calls.filter((call) => call.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toEqual({ token: TOKEN, deviceId: localStorage.getItem('deviceId'), utmCampaign: 'spring' });
  });
});

describe('a browser signed in to another account (login CSRF, decision 0020)', () => {
  const signedInAs = (email: string) => () =>
    json(200, { user: { id: 'u1', email, firstName: 'Vic', lastName: 'Tim' }, expiresAt: '2030-01-01T00:00:00.000Z' });

  it('names the account the link signs in to and submits only when the person continues', async () => {
    const calls = stubFetch({
      [FIELDS]: () => json(200, { email: EMAIL, fields: [] }),
      [SETUP]: () => json(200, { otter: 'session' }),
      [SESSION]: signedInAs('victim@example.com'),
    });
    const { assign } = stubLocation();
    renderApp(`/verify-email/${TOKEN}`);
    expect(await screen.findByText(/Sign in to this browser as/)).toHaveTextContent(`Sign in to this browser as ${EMAIL}?`);
    expect(screen.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/sign-in');
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(0);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('submits at once when the browser is signed in to the same account', async () => {
    const calls = stubFetch({
      [FIELDS]: () => json(200, { email: EMAIL, fields: [] }),
      [SETUP]: () => json(200, { otter: 'session' }),
      [SESSION]: signedInAs(EMAIL.toUpperCase()),
    });
    const { assign } = stubLocation();
    renderApp(`/verify-email/${TOKEN}`);
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });
});

describe('setup errors (spec §8)', () => {
  const INVALID =
    'The link for setting up your account appears to be invalid. If you are in an organization, please request that your organization administrator re-send the link.';
  const EXPIRED = 'This link has expired. Please check your email to finish setting up your account.';

  it.each([
    ['invalidToken', 400, INVALID],
    ['invalidRequest', 400, INVALID],
    ['tokenExpired', 410, EXPIRED],
  ])('%s on load replaces the form with its text and the way back to sign-in', async (code, status, text) => {
    stubSetup(() => json(status, { errorMessage: code }));
    renderApp(`/setup-account/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(screen.queryByRole('button', { name: 'Complete Setup' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try Again' })).not.toBeInTheDocument();
  });

  it('any other failure on load is the unknown error, with a retry', async () => {
    const answers = [json(500, { errorMessage: 'unexpectedError' }), json(200, { email: EMAIL, fields: ['firstName'] })];
    stubSetup(() => answers.shift() ?? json(500, {}));
    renderApp(`/setup-account/${TOKEN}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('An unknown error has occurred.');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByLabelText('First name')).toBeInTheDocument();
  });

  it('an expired link at submit replaces the form', async () => {
    stubSetup(
      () => json(200, { email: EMAIL, fields: ['firstName'] }),
      () => json(410, { errorMessage: 'tokenExpired' }),
    );
    await openForm();
    await userEvent.setup().type(screen.getByLabelText('First name'), 'Ann{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(EXPIRED);
    expect(screen.queryByLabelText('First name')).not.toBeInTheDocument();
    // The form the person was in is gone: focus goes to what replaced it.
    await waitFor(() => expect(alert).toHaveFocus());
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toBeInTheDocument();
  });

  it.each([
    ['rateLimitExeeded', () => json(429, { errorMessage: 'rateLimitExeeded' }), 'Too many attempts. Please try again later.'],
    ['a server fault', () => json(500, { errorMessage: 'unexpectedError' }), 'An unknown error has occurred.'],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'Network Error'],
  ])('%s at submit keeps the form, with its text', async (_name, answer, text) => {
    stubSetup(() => json(200, { email: EMAIL, fields: ['firstName'] }), answer);
    await openForm();
    await userEvent.setup().type(screen.getByLabelText('First name'), 'Ann{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    await waitFor(() => expect(alert).toHaveFocus());
    expect(screen.getByLabelText('First name')).toHaveValue('Ann');
    expect(screen.getByRole('button', { name: 'Complete Setup' })).toBeEnabled();
  });
});

describe('whose account the link sets up (decision 0020)', () => {
  it("names the account's email", async () => {
    stubSetup(() => json(200, { email: EMAIL, fields: ['hashPassword'] }));
    await openForm();
    expect(screen.getByText(/You are setting up the account/)).toHaveTextContent(`You are setting up the account ${EMAIL}.`);
  });

  it('names the organisation of an invitation', async () => {
    stubSetup(() => json(200, { email: EMAIL, organization: 'Acme Ltd', fields: ALL_FIELDS }));
    await openForm();
    expect(screen.getByText(/You are setting up the account/)).toHaveTextContent(`You are setting up the account ${EMAIL}, invited by Acme Ltd.`);
  });
});

describe('verification links that ended (decision 0020)', () => {
  const RESEND = 'POST /api/account/resendVerification/byLink';
  const VERIFIED = 'This email address is already verified, so this link is no longer needed. Sign in to continue.';
  const SUPERSEDED = 'A newer link was sent to this email address, so this one no longer works. Use the link in the latest email, or send another.';

  it('a link of a verified account says so and offers sign-in', async () => {
    stubSetup(() => json(409, { errorMessage: 'alreadyVerified' }));
    renderApp(`/verify-email/${TOKEN}`);
    const notice = await screen.findByText(VERIFIED);
    await waitFor(() => expect(notice.closest('.alert')).toHaveFocus());
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/sign-in');
    expect(screen.queryByRole('button', { name: 'Complete Setup' })).not.toBeInTheDocument();
  });

  it('a signed-in browser goes home instead, without the notice', async () => {
    stubFetch({
      [FIELDS]: () => json(409, { errorMessage: 'alreadyVerified' }),
      [SESSION]: () =>
        json(200, { user: { id: 'u', email: EMAIL, firstName: 'Ann', lastName: 'Lee', emailVerified: true }, expiresAt: new Date().toISOString() }),
    });
    const { replace } = stubLocation();
    renderApp(`/verify-email/${TOKEN}`);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/home'));
    expect(screen.queryByText(VERIFIED)).not.toBeInTheDocument();
  });

  it('a verification at submit that finds the account verified shows the same', async () => {
    stubSetup(
      () => json(200, { email: EMAIL, fields: ['firstName'] }),
      () => json(409, { errorMessage: 'alreadyVerified' }),
    );
    await openForm();
    await userEvent.setup().type(screen.getByLabelText('First name'), 'Ann{Enter}');
    expect(await screen.findByText(VERIFIED)).toBeInTheDocument();
    expect(screen.queryByLabelText('First name')).not.toBeInTheDocument();
  });

  it('a superseded link says a newer one was sent, and sends another for the same link', async () => {
    const answer = deferred<Response>();
    const calls = stubFetch({ [FIELDS]: () => json(410, { errorMessage: 'linkSuperseded' }), [RESEND]: () => answer.promise });
    renderApp(`/verify-email/${TOKEN}`);
    expect(await screen.findByText(SUPERSEDED)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/sign-in');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send Another Link' }));
    expect(screen.getByRole('button', { name: 'Send Another Link' })).toHaveAttribute('aria-busy', 'true');
    answer.resolve(json(200, {}));
    const sent = await screen.findByText('We sent a new link. Please check your inbox.');
    await waitFor(() => expect(sent.closest('p')).toHaveFocus());
    expect(screen.queryByRole('button', { name: 'Send Another Link' })).not.toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.body)).toEqual([{ token: TOKEN }]);
  });

  it('a refused resend says why and keeps the button', async () => {
    stubFetch({ [FIELDS]: () => json(410, { errorMessage: 'linkSuperseded' }), [RESEND]: () => json(429, { errorMessage: 'rateLimitExeeded' }) });
    renderApp(`/verify-email/${TOKEN}`);
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Send Another Link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many attempts. Please try again later.');
    expect(screen.getByRole('button', { name: 'Send Another Link' })).toBeEnabled();
  });
});

describe('failures that are no answer (decision 0027)', () => {
  it('keep their global texts, not the unknown error, and can be tried again', () => {
    expect(setupFailure('timeout')).toEqual({ key: 'error.timeout', deadLink: false });
    expect(setupFailure('unsupportedProtocol')).toEqual({ key: 'error.unsupportedProtocol', deadLink: false });
    expect(setupFailure('network')).toEqual({ key: 'error.network', deadLink: false });
  });
});
