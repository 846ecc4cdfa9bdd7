import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, expireEmailedLinks, newContext, type RunningServer, screenshot, startMailStack } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

const PASSWORD = 'plum orchard lantern 42';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  ({ server, browser, mail, stop } = await startMailStack());
});

after(() => stop());

async function fillSignUp(page: Page, email: string): Promise<void> {
  await page.getByLabel('First name').fill('Nora');
  await page.getByLabel('Last name').fill('Quinn');
  await page.getByLabel('Work email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
}

describe('sign-up, verification and setup in Chromium', () => {
  test('a new person signs up, reads the mail, follows the link and lands signed in', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up?utm_source=newsletter&plan=individual`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByLabel('(Optional) Let us show you around').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the sign-up form');
    await screenshot(page, 'sign-up');

    // The spec's validation texts, shown once a field is left in a bad state.
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByText('First name is required').waitFor();
    await page.getByText('Last name is required').waitFor();
    await page.getByText('Email address is not valid').waitFor();
    await page.getByText('Password must be at least 8 characters').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe with validation errors shown');

    await fillSignUp(page, 'nora@example.com');
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on Check Your Email');
    await screenshot(page, 'sign-up-check-email');

    const verification = await mail.waitFor('nora@example.com', /Foyer/);
    assert.ok(verification.html.length > 0, 'the mail has an HTML part');
    const link = linkTo(verification, '/verify-email/');

    // Resend: the link hides once sent, 'Email sent!' shows, and a second mail arrives.
    const before = mail.count('nora@example.com');
    await page.getByRole('button', { name: 'Click to resend.' }).click();
    await page.getByText('Email sent!').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Click to resend.' }).count(), 0);
    assert.deepEqual(await axeViolations(page), [], 'axe on Email sent!');
    await waitUntil(() => mail.count('nora@example.com') > before);
    const latest = linkTo(await mail.waitFor('nora@example.com', /Foyer/), '/verify-email/');

    // Opening the link spends nothing; the page finishes setup itself (nothing is missing).
    const fresh = await (await newContext(browser)).newPage();
    await fresh.goto(latest);
    await fresh.waitForURL(`${server.url}/home`);
    await fresh.getByText('Signed in as Nora Quinn').waitFor();
    await fresh.context().close();

    // The first link was replaced by the resend; it no longer signs anyone in, and now that the
    // email is verified it says so (decision 0020).
    const stale = await (await newContext(browser)).newPage();
    await stale.goto(link);
    await stale.getByText('This email address is already verified, so this link is no longer needed. Sign in to continue.').waitFor();
    assert.equal(await stale.getByRole('link', { name: 'Sign In' }).getAttribute('href'), '/sign-in');
    await stale.context().close();
    await page.context().close();
  });

  test('a used link cannot be used twice', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up`);
    await fillSignUp(page, 'otto@example.com');
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    const link = linkTo(await mail.waitFor('otto@example.com', /Foyer/), '/verify-email/');
    await page.goto(link);
    await page.waitForURL(`${server.url}/home`);
    await page.context().close();

    // Used, the link signs nobody in; it says the email is verified and offers sign-in (decision 0020).
    const again = await (await newContext(browser)).newPage();
    await again.goto(link);
    await again.getByText('This email address is already verified, so this link is no longer needed. Sign in to continue.').waitFor();
    assert.deepEqual(await axeViolations(again), [], 'axe on the used link');
    await again.context().close();
  });

  test('an expired link shows its text', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up`);
    await fillSignUp(page, 'pia@example.com');
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    const link = linkTo(await mail.waitFor('pia@example.com', /Foyer/), '/verify-email/');
    await expireEmailedLinks(server, 'pia@example.com');
    await page.goto(link);
    await page.getByText('This link has expired. Please check your email to finish setting up your account.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the expired link');
    await page.context().close();
  });

  test('start over empties the form', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up`);
    await fillSignUp(page, 'quin@example.com');
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    await page.getByRole('button', { name: 'Start over' }).click();
    await page.getByLabel('Work email').waitFor();
    assert.equal(await page.getByLabel('Work email').inputValue(), '');
    assert.equal(await page.getByLabel('First name').inputValue(), '');
    await page.context().close();
  });

  test('an invitee sets a name and password from the mail and lands signed in', async () => {
    await server.admin('org', 'create', '--name', 'Acme');
    await server.admin('invite', '--org', 'Acme', '--email', 'ivy@example.com');
    const invitation = await mail.waitFor('ivy@example.com', /Acme|Foyer/);
    const link = linkTo(invitation, '/setup-account/');

    const page = await (await newContext(browser)).newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Complete Account Setup' }).waitFor();
    await page.getByLabel('First name').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the setup form');
    await screenshot(page, 'setup-account');
    await page.getByLabel('First name').fill('Ivy');
    await page.getByLabel('Last name').fill('Park');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Complete Setup' }).click();
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Ivy Park').waitFor();
    await page.context().close();
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
