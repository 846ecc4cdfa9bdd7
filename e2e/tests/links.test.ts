import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, newContext, type RunningServer, screenshot, startMailStack } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

/**
 * Emailed links that were used, replaced or reset, and the unverified sign-in, as a person meets
 * them (decision 0020): every state says what happened and offers the way on.
 */

const PASSWORD = 'cobalt lantern meadow 61';
const ALREADY_VERIFIED = 'This email address is already verified, so this link is no longer needed. Sign in to continue.';
const SUPERSEDED = 'A newer link was sent to this email address, so this one no longer works. Use the link in the latest email, or send another.';
const INVALID_SETUP = 'The link for setting up your account appears to be invalid.';

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

/** Signs up through the form and returns its first verification link. */
async function signUp(page: Page, email: string): Promise<string> {
  const before = mail.count(email);
  await page.goto(`${server.url}/sign-up`);
  await page.getByLabel('First name').fill('Lena');
  await page.getByLabel('Last name').fill('Marsh');
  await page.getByLabel('Work email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Get Started' }).click();
  await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
  return newestLink(email, before, '/verify-email/');
}

/** The link of the first mail to `email` beyond the `before` it had. */
async function newestLink(email: string, before: number, prefix: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (mail.count(email) <= before) {
    if (Date.now() > deadline) throw new Error(`no new mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return linkTo(await mail.waitFor(email, /./), prefix);
}

/** Records, from before the page's own script runs, whether a password field ever appeared. */
async function watchForPasswordField(page: Page): Promise<() => Promise<boolean>> {
  await page.addInitScript(() => {
    const seen = () => {
      if (document.querySelector('input[type="password"]')) sessionStorage.setItem('sawPassword', 'yes');
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true });
  });
  return async () => (await page.evaluate(() => sessionStorage.getItem('sawPassword'))) === 'yes';
}

describe('verification links used already (decision 0020)', () => {
  test('a second click says the email is verified and offers sign-in; signed in, it goes home', async () => {
    const page = await newPage();
    const link = await signUp(page, 'lena@example.com');
    await page.goto(link);
    await page.waitForURL(`${server.url}/home`);

    // The same browser, signed in: the link sends it home, and so does Back after verifying.
    await page.goto(link);
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Lena Marsh').waitFor();
    await page.goBack();
    await page.waitForURL(`${server.url}/home`);
    assert.equal(await page.getByText(INVALID_SETUP, { exact: false }).count(), 0);

    // Another browser: it says so, and sign-in is the way on.
    const other = await newPage();
    await other.goto(link);
    await other.getByText(ALREADY_VERIFIED).waitFor();
    assert.equal(await other.getByText(INVALID_SETUP, { exact: false }).count(), 0, 'not the invitation text');
    assert.deepEqual(await axeViolations(other), [], 'axe on an already verified link');
    await screenshot(other, 'link-already-verified');
    await other.getByRole('link', { name: 'Sign In' }).click();
    await other.waitForURL(`${server.url}/sign-in`);
    await other.getByLabel('Email', { exact: true }).fill('lena@example.com');
    await other.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign In', exact: true }).click();
    await other.waitForURL(`${server.url}/home`);
    await other.context().close();
    await page.context().close();
  });

  test('a superseded link says a newer one was sent, and Send Another Link mails one that works', async () => {
    const page = await newPage();
    const first = await signUp(page, 'milo@example.com');
    const before = mail.count('milo@example.com');
    await page.getByRole('button', { name: 'Click to resend.' }).click();
    await page.getByText('Email sent!').waitFor();
    await newestLink('milo@example.com', before, '/verify-email/');
    await page.context().close();

    const stale = await newPage();
    await stale.goto(first);
    await stale.getByText(SUPERSEDED).waitFor();
    assert.equal(await stale.getByText(INVALID_SETUP, { exact: false }).count(), 0, 'not the invitation text');
    assert.deepEqual(await axeViolations(stale), [], 'axe on a superseded link');
    await screenshot(stale, 'link-superseded');

    const count = mail.count('milo@example.com');
    await stale.getByRole('button', { name: 'Send Another Link' }).click();
    await stale.getByText('We sent a new link. Please check your inbox.').waitFor();
    assert.equal(await stale.getByRole('button', { name: 'Send Another Link' }).count(), 0, 'the button is gone once sent');
    assert.deepEqual(await axeViolations(stale), [], 'axe on the new link sent');
    const fresh = await newestLink('milo@example.com', count, '/verify-email/');
    assert.notEqual(fresh, first);
    await stale.goto(fresh);
    await stale.waitForURL(`${server.url}/home`);
    await stale.getByText('Signed in as Lena Marsh').waitFor();
    await stale.context().close();
  });

  test('an invitation used already keeps the invitation text', async () => {
    const before = mail.count('nils@example.com');
    await server.admin('org', 'create', '--name', 'Initech');
    await server.admin('invite', '--org', 'Initech', '--email', 'nils@example.com');
    const link = await newestLink('nils@example.com', before, '/setup-account/');
    const page = await newPage();
    await page.goto(link);
    // The screen names the account and the organisation that invited it.
    await page.getByText('You are setting up the account nils@example.com, invited by Initech.').waitFor();
    assert.equal(await page.locator('form input[autocomplete="username"]').inputValue(), 'nils@example.com');
    assert.deepEqual(await axeViolations(page), [], 'axe on the setup form with its account');
    await page.getByLabel('First name').fill('Nils');
    await page.getByLabel('Last name').fill('Berg');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Complete Setup' }).click();
    await page.waitForURL(`${server.url}/home`);
    await page.context().close();

    const again = await newPage();
    await again.goto(link);
    await again.getByText(INVALID_SETUP, { exact: false }).waitFor();
    await again.context().close();
  });
});

describe('an unverified sign-in has a way forward (decision 0020)', () => {
  test("'Resend Verification Email' mails a fresh link for that sign-up", async () => {
    const page = await newPage();
    await signUp(page, 'oona@example.com');
    const before = mail.count('oona@example.com');
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill('oona@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('This email is unverified. Please check your inbox.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the unverified sign-in');
    await screenshot(page, 'sign-in-unverified');

    await page.getByRole('button', { name: 'Resend Verification Email' }).click();
    await page.getByText('We sent a new verification link. Please check your inbox.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Resend Verification Email' }).count(), 0);
    assert.deepEqual(await axeViolations(page), [], 'axe once the link was sent');
    const link = await newestLink('oona@example.com', before, '/verify-email/');
    await page.goto(link);
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Lena Marsh').waitFor();
    await page.context().close();
  });
});

describe('reset links checked when the page opens (decision 0020)', () => {
  async function resetLink(email: string): Promise<string> {
    const before = mail.count(email);
    const page = await newPage();
    await page.goto(`${server.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
    await page.getByText(/We sent a reset email/).waitFor();
    await page.context().close();
    return newestLink(email, before, '/reset-password/');
  }

  test('the screen names the account, and a dead link says so before anyone types a password', async () => {
    await server.admin('user', 'create', '--email', 'pax@example.com', '--password', PASSWORD, '--first-name', 'Pax', '--last-name', 'Ode');
    const link = await resetLink('pax@example.com');
    const page = await newPage();
    await page.goto(link);
    await page.getByText('Choose a new password for pax@example.com.').waitFor();
    assert.equal(await page.locator('form input[autocomplete="username"]').inputValue(), 'pax@example.com');
    assert.deepEqual(await axeViolations(page), [], 'axe on the reset form with its account');
    await page.getByLabel('New password', { exact: true }).fill('amber willow canyon 17');
    await page.getByLabel('New password', { exact: true }).press('Enter');
    await page.getByText('Your password was updated.').waitFor();
    await page.context().close();

    // Used once, the link is dead: the page says so when it opens, and no password field appears.
    const again = await newPage();
    const sawPassword = await watchForPasswordField(again);
    await again.goto(link);
    await again.getByText('This link is invalid or has expired.').waitFor();
    assert.equal(await again.getByRole('link', { name: 'Click here to get a new one.' }).getAttribute('href'), '/forgot-password');
    assert.equal(await sawPassword(), false, 'no password field was ever shown');
    assert.deepEqual(await axeViolations(again), [], 'axe on a dead reset link');
    await screenshot(again, 'reset-password-dead-on-open');
    await again.context().close();
  });

  test('a verification link after a reset says the email is verified', async () => {
    const page = await newPage();
    const verification = await signUp(page, 'quill@example.com');
    await page.context().close();
    const reset = await resetLink('quill@example.com');
    const resetPage = await newPage();
    await resetPage.goto(reset);
    await resetPage.getByLabel('New password', { exact: true }).fill('amber willow canyon 18');
    await resetPage.getByLabel('New password', { exact: true }).press('Enter');
    await resetPage.getByText('Your password was updated.').waitFor();
    await resetPage.goto(verification);
    await resetPage.getByText(ALREADY_VERIFIED).waitFor();
    await resetPage.context().close();
  });
});
