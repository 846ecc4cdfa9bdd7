import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, newContext, type RunningServer, startMailStack, startServer } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

const PASSWORD = 'amber kettle orchard 58';
const NEW_PASSWORD = 'silver pigeon meadow 31';
const NETWORK_ERROR = 'Network Error';
const NETWORK_NEXT = 'Check your internet connection, then try again.';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  ({ server, browser, mail, stop } = await startMailStack());
});

after(() => stop());

async function newPage(): Promise<Page> {
  return (await newContext(browser)).newPage();
}

/** The newest mail to `email` that arrived after `before` mails to it had. */
async function nextMail(email: string, before: number, subject: RegExp) {
  const deadline = Date.now() + 20_000;
  while (mail.count(email) <= before) {
    if (Date.now() > deadline) throw new Error(`no new mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return mail.waitFor(email, subject);
}

/**
 * Submits the form with its call failing as a dropped connection does, checks spec §8's text and
 * the next step in the alert, then submits again with the network back: what was typed is still
 * there, and the form goes on.
 */
async function failsThenRecovers(page: Page, callPath: string, submit: () => Promise<void>): Promise<void> {
  const pattern = `**/api${callPath}`;
  await page.route(pattern, (route) => route.abort('internetdisconnected'));
  await submit();
  const alert = page.getByRole('alert').filter({ hasText: NETWORK_ERROR });
  await alert.waitFor();
  assert.match((await alert.innerText()).replace(/\s+/g, ' '), new RegExp(`${NETWORK_ERROR} ${NETWORK_NEXT}`));
  assert.deepEqual(await axeViolations(page), []);
  await page.unroute(pattern);
  await submit();
}

describe('a dropped connection on each form (spec §8 generic HTTP failures)', () => {
  test('sign-in', async () => {
    await server.admin('user', 'create', '--email', 'lena@example.com', '--password', PASSWORD, '--first-name', 'Lena', '--last-name', 'Berg');
    const page = await newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill('lena@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await failsThenRecovers(page, '/account/signin', () => page.getByRole('button', { name: 'Sign In', exact: true }).click());
    await page.waitForURL(`${server.url}/home`);
    await page.context().close();
  });

  test('sign-up', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/sign-up`);
    await page.getByLabel('First name').fill('Ravi');
    await page.getByLabel('Last name').fill('Menon');
    await page.getByLabel('Work email').fill('ravi@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await failsThenRecovers(page, '/account/signup', () => page.getByRole('button', { name: 'Get Started' }).click());
    await page.getByText('Check Your Email').waitFor();
    await page.context().close();
  });

  test('forgot password', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).fill('lena@example.com');
    await failsThenRecovers(page, '/account/forgotPassword', () => page.getByRole('button', { name: 'Email Reset Password Link' }).click());
    await page.getByText(/We sent a reset email/).waitFor();
    await page.context().close();
  });

  test('reset password', async () => {
    await server.admin('user', 'create', '--email', 'mika@example.com', '--password', PASSWORD, '--first-name', 'Mika', '--last-name', 'Sato');
    const before = mail.count('mika@example.com');
    const request = await newPage();
    await request.goto(`${server.url}/forgot-password`);
    await request.getByLabel('Email', { exact: true }).fill('mika@example.com');
    await request.getByRole('button', { name: 'Email Reset Password Link' }).click();
    const link = linkTo(await nextMail('mika@example.com', before, /password/i), '/reset-password/');
    await request.context().close();

    const page = await newPage();
    await page.goto(link);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await failsThenRecovers(page, '/account/resetPassword', () => page.getByRole('button', { name: 'Change Password' }).click());
    await page.getByText('Your password was updated.').waitFor();
    await page.context().close();
  });

  test('account setup from an invitation', async () => {
    const before = mail.count('ines@example.com');
    await server.admin('org', 'create', '--name', 'Network Failures Ltd');
    await server.admin('invite', '--org', 'Network Failures Ltd', '--email', 'ines@example.com');
    const link = linkTo(await nextMail('ines@example.com', before, /./), '/setup-account/');
    const page = await newPage();
    await page.goto(link);
    await page.getByLabel('First name').fill('Ines');
    await page.getByLabel('Last name').fill('Costa');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await failsThenRecovers(page, '/account/setupAccount', () => page.getByRole('button', { name: 'Complete Setup' }).click());
    await page.waitForURL(`${server.url}/home`);
    await page.context().close();
  });

  test('change email, on the home page', async () => {
    await server.admin('user', 'create', '--email', 'tove@example.com', '--password', PASSWORD, '--first-name', 'Tove', '--last-name', 'Lund');
    const page = await newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill('tove@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL(`${server.url}/home`);
    await page.getByLabel('New email').fill('tove.lund@example.com');
    await page.getByLabel('Current password').fill(PASSWORD);
    await failsThenRecovers(page, '/account/changeEmail', () => page.getByRole('button', { name: 'Send Verification Link' }).click());
    await page.getByText(/for a link to confirm your new email/).waitFor();
    await page.context().close();
  });

  test('SSO sign-in', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await page
      .getByLabel('Work email')
      .or(page.getByLabel('Email', { exact: true }))
      .fill('nobody@unclaimed.example');
    await failsThenRecovers(page, '/account/sso/start', () => page.getByRole('button', { name: 'Sign In', exact: true }).click());
    // Back on the network, the service answers: no connection for that email.
    await page.getByText("Sorry, we didn't recognize your account. Please connect from your SSO dashboard.").waitFor();
    await page.context().close();
  });
});

describe('a call that takes longer than HTTP_TIMEOUT_MS (spec §8, §9)', () => {
  let slow: RunningServer;
  let slowBrowser: Browser;

  before(async () => {
    slow = await startServer({ HTTP_TIMEOUT_MS: '1500' });
    slowBrowser = await launchBrowser();
  });

  after(async () => {
    await slowBrowser.close();
    await slow.stop();
  });

  test('says which timeout passed and what to do, and the form still works', async () => {
    const page = await (await newContext(slowBrowser)).newPage();
    await page.goto(`${slow.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).fill('late@example.com');
    // The answer comes after three seconds: past the configured 1.5 s.
    await page.route('**/api/account/forgotPassword', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await route.continue().catch(() => undefined);
    });
    await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'timeout of 1500 ms exceeded' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /took too long to answer/);
    await page.unroute('**/api/account/forgotPassword');
    await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
    await page.getByText(/We sent a reset email/).waitFor();
    await page.context().close();
  });
});
