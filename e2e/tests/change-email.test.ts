import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, newContext, type RunningServer, screenshot, startMailStack } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

const PASSWORD = 'quiet meadow compass 8';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  ({ server, browser, mail, stop } = await startMailStack());
});

after(() => stop());

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await page.waitForURL(`${server.url}/home`);
  await page.getByRole('heading', { level: 2, name: 'Change email' }).waitFor();
}

describe('changing the email address in Chromium (decision 0023)', () => {
  test('from the home page form to the mail to the link, signed in with the new email shown', async () => {
    await server.admin('user', 'create', '--email', 'iris@example.com', '--password', PASSWORD, '--first-name', 'Iris', '--last-name', 'Novak');
    const elsewhere = await (await newContext(browser)).newPage();
    await signIn(elsewhere, 'iris@example.com');

    const page = await (await newContext(browser)).newPage();
    await signIn(page, 'iris@example.com');
    assert.deepEqual(await axeViolations(page), [], 'axe on the home page with the change-email form');
    await screenshot(page, 'home-change-email');

    // A wrong password is refused and nothing is mailed.
    await page.getByLabel('New email').fill('iris.novak@example.org');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByRole('button', { name: 'Send Verification Link' }).click();
    await page.getByRole('alert').getByText('That password is not correct.').waitFor();

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('Current password').press('Enter');
    await page.getByText('Check iris.novak@example.org for a link to confirm your new email.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the sent state');
    await screenshot(page, 'home-change-email-sent');

    const notice = await mail.waitFor('iris@example.com', /change of your Foyer email address/);
    assert.match(notice.text, /iris\.novak@example\.org/);
    const confirm = await mail.waitFor('iris.novak@example.org', /Confirm your new email address/);
    assert.equal(mail.count('iris.novak@example.org'), 1, 'the new address gets only the link');
    const link = linkTo(confirm, '/verify-new-email/');

    // The link carries `next` as a link of the product's settings would; it must pass the allow-list.
    await page.goto(`${link}?next=${encodeURIComponent('https://evil.example/steal')}`);
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Email: iris.novak@example.org').waitFor();
    await screenshot(page, 'home-after-change');

    // The other browser's session ended with the change.
    await elsewhere.reload();
    await elsewhere.waitForURL(/\/sign-in/);

    // The spent link says so in the spec's words, with axe on the screen.
    await page.goto(link);
    await page.getByText('This link is invalid or has expired. Please check your email for a new link.').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the verify-new-email failure');
    await screenshot(page, 'verify-new-email-invalid');
  });

  test('the verifying state shows its progress and is accessible', async () => {
    const page = await (await newContext(browser)).newPage();
    // Slow the link's check down (the page's first call) so the progress can be seen and checked.
    await page.route('**/api/account/verifyNewEmail/check', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      await route.continue();
    });
    await page.goto(`${server.url}/verify-new-email/${'A'.repeat(43)}`);
    await page.getByRole('heading', { name: 'Verify New Email' }).waitFor();
    await page.getByRole('status').getByText('Verifying your new email…').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the verifying state');
    await screenshot(page, 'verify-new-email-progress');
    await page.getByText('This link is invalid or has expired. Please check your email for a new link.').waitFor();
  });

  test('a person who signs up can verify later, keeping the reminder and the resend', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-up`);
    await page.getByLabel('First name').fill('Otto');
    await page.getByLabel('Last name').fill('Lind');
    await page.getByLabel('Work email').fill('otto@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
    await mail.waitFor('otto@example.com', /Verify your email/);

    await page.getByRole('button', { name: 'Verify later' }).click();
    await page.waitForURL(`${server.url}/defer-email-verification`);
    await page.getByRole('heading', { name: 'Verify Your Email Later' }).waitFor();
    await page.getByText('The link we sent to otto@example.com works for 24 hours').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on deferred verification');
    await screenshot(page, 'defer-email-verification');

    const before = mail.count('otto@example.com');
    await page.getByRole('button', { name: 'Click to resend.' }).click();
    await page.getByText('Email sent!').waitFor();
    const deadline = Date.now() + 20_000;
    while (mail.count('otto@example.com') <= before) {
      assert.ok(Date.now() < deadline, 'the resent mail arrives');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Continue: locally there is no marketing site, so sign-in; the unverified sign-in reminds them.
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email', { exact: true }).fill('otto@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('This email is unverified. Please check your inbox.').waitFor();

    // Later, from the newest mail, the link signs them in.
    const newest = await mail.waitFor('otto@example.com', /Verify your email/);
    await page.goto(linkTo(newest, '/verify-email/'));
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Email: otto@example.com').waitFor();
  });
});
