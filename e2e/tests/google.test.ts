import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, newContext, type RunningServer, screenshot, startServer } from '../src/harness.ts';

// `npm start` on a fresh machine: FOYER_ENV=local without GOOGLE_CLIENT_ID starts the stand-in
// OpenID provider (decision 0019); only its port is chosen here, so parallel runs do not collide.
let server: RunningServer;
let browser: Browser;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

before(async () => {
  server = await startServer({ FOYER_ENV: 'local', GOOGLE_STAND_IN_PORT: String(await freePort()) });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function noAxeViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${what}`);
}

/** What a person does on the stand-in's page: types an email and names, and continues. */
async function passStandIn(page: Page, person: { email: string; first?: string; last?: string }): Promise<void> {
  await page.getByLabel('Email', { exact: true }).waitFor();
  await page.getByLabel('Email', { exact: true }).fill(person.email);
  await page.getByLabel('First name').fill(person.first ?? 'Grace');
  await page.getByLabel('Last name').fill(person.last ?? 'Hopper');
  await page.getByRole('button', { name: 'Continue' }).click();
}

function signupSourceOf(email: string): string | undefined {
  const db = new Database(server.databasePath, { readonly: true });
  try {
    const row = db
      .prepare('select a.signup_source as source from user_attribution a join users u on u.id = a.user_id where u.email_key = ?')
      .get(email.toLowerCase()) as { source: string } | undefined;
    return row?.source;
  } finally {
    db.close();
  }
}

describe('Google sign-in in Chromium, through the local stand-in', () => {
  test('signs up with Google from /sign-up and lands signed in', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up?utm_source=e2e`);
    // Hold the start call a moment, so the start screen can be checked before it leaves.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/account/socialAuth', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('link', { name: 'Sign Up with Google' }).click();
    await page.getByRole('heading', { name: 'Continue with Google' }).waitFor();
    await noAxeViolations(page, 'the start screen');
    release();
    const email = `grace-${randomBytes(4).toString('hex')}@example.com`;
    await passStandIn(page, { email });
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Grace Hopper').waitFor();
    assert.equal(signupSourceOf(email), 'auth/sign-up/google');
    await page.context().close();
  });

  test('signs in with Google from /sign-in into an existing password account', async () => {
    const email = `ann-${randomBytes(4).toString('hex')}@example.com`;
    await server.admin('user', 'create', '--email', email, '--password', 'correct horse battery staple', '--first-name', 'Ann', '--last-name', 'Lee');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await passStandIn(page, { email: email.toUpperCase(), first: 'Annie', last: 'Google' });
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Ann Lee').waitFor();
    await page.context().close();
  });

  test('a native app: Sign-in Successful, and its transfer token signs the app in once and only once', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${server.url}/social-auth?native=true&useTransferToken=true&from=${encodeURIComponent('foyer://signin')}`);
    await passStandIn(page, { email: `app-${randomBytes(4).toString('hex')}@example.com` });
    await page.getByRole('heading', { name: 'Sign-in Successful' }).waitFor();
    await page.getByText('You can now return to the app.').waitFor();
    await noAxeViolations(page, 'Sign-in Successful');
    await screenshot(page, 'google-native-success');
    const href = await page.getByRole('link', { name: 'Open the app' }).getAttribute('href');
    const token = new URL(href ?? '').searchParams.get('transferToken') ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(
      (await context.cookies()).find((cookie) => cookie.name === 'otter_local'),
      undefined,
      'no session in the browser',
    );

    // The app, as a native client: its own device id, the XSRF pair, then the session with Bearer.
    const xsrf = randomBytes(32).toString('base64url');
    const deviceId = randomBytes(9).toString('base64url');
    const exchange = () =>
      fetch(`${server.url}/api/account/exchangeSSOTransferToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `XSRF-TOKEN=${xsrf}`, 'X-XSRF-TOKEN': xsrf },
        body: JSON.stringify({ token, deviceId }),
      });
    const first = await exchange();
    assert.equal(first.status, 200);
    const { otter } = (await first.json()) as { otter: string };
    const session = await fetch(`${server.url}/api/account/session`, { headers: { authorization: `Bearer ${otter}`, 'X-DeviceId': deviceId } });
    assert.equal(session.status, 200);
    const second = await exchange();
    assert.equal(second.status, 400);
    assert.deepEqual(await second.json(), { errorMessage: 'ssoTransferFailed' });
    await context.close();
  });

  test('cancelling at the consent page shows a clear message and the way back', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in?from=%2Fhome`);
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('You cancelled signing in with Google. Nothing was changed.').waitFor();
    await noAxeViolations(page, 'the cancelled state');
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.waitForURL(`${server.url}/sign-in?from=%2Fhome`);
    await page.context().close();
  });

  test('a return this tab did not start is refused with a way back', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/social-auth-callback?code=stolen&state=not-mine`);
    await page.getByText('This sign-in attempt could not be verified. Please try again.').waitFor();
    await noAxeViolations(page, 'the state-mismatch error');
    await page.context().close();
  });

  test('an email of an SSO-required domain gets the spec text and a sign-in-with-SSO link', async () => {
    const domain = `sso-${randomBytes(3).toString('hex')}.example`;
    await server.admin('org', 'create', '--name', `Org ${domain}`, '--domain', domain, '--sso-required');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/social-auth`);
    await passStandIn(page, { email: `bea@${domain}` });
    await page.getByText('This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.').waitFor();
    // The refusal names the address Google vouched for, so SSO sign-in opens with it filled in.
    const sso = page.getByRole('link', { name: 'Sign in with SSO' });
    assert.equal(await sso.getAttribute('href'), `/sso-sign-in?email=${encodeURIComponent(`bea@${domain}`)}`);
    await noAxeViolations(page, 'the ssoRequired error');
    await sso.click();
    await page.waitForURL((url) => url.pathname === '/sso-sign-in');
    assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), `bea@${domain}`);
    await page.context().close();
  });
});
