import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import de from '../../packages/contract/src/lang/de.json' with { type: 'json' };
import { axeViolations, launchBrowser, newContext, type RunningServer, screenshot, startServer } from '../src/harness.ts';

const PASSWORD = 'correct horse battery staple';

let server: RunningServer;
let browser: Browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function createUser(email: string, ...extra: string[]): Promise<void> {
  await server.admin('user', 'create', '--email', email, '--password', PASSWORD, '--first-name', 'Ann', '--last-name', 'Lee', ...extra);
}

async function openSignIn(page: Page, query = ''): Promise<void> {
  await page.goto(`${server.url}/sign-in${query}`);
  await page.getByLabel('Email', { exact: true }).waitFor();
}

/** Fills and submits the form, and waits until the service has answered. */
async function submitSignIn(page: Page, email: string, password: string): Promise<number> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  const answered = page.waitForResponse((response) => response.url().endsWith('/api/account/signin'));
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  return (await answered).status();
}

describe('sign-in in Chromium', () => {
  test('a person signs in, lands on home, sees who they are, and signs out', async () => {
    await createUser('ann@example.com');
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page);
    const submit = page.getByRole('button', { name: 'Sign In', exact: true });
    assert.equal(await submit.isDisabled(), true, 'Sign In is disabled while the fields are empty');
    assert.deepEqual(await axeViolations(page), [], 'axe on the sign-in screen');
    await screenshot(page, 'sign-in-desktop');

    await page.getByLabel('Email', { exact: true }).fill('  Ann@Example.com ');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    assert.equal(await submit.isDisabled(), false);
    await page.getByLabel('Password', { exact: true }).press('Enter');

    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Ann Lee').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'axe on the home screen');
    await screenshot(page, 'home-desktop');

    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'otter_test');
    assert.ok(session, 'the session cookie is set with the env suffix');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.ok(!(await page.evaluate(() => document.cookie)).includes('otter'), 'page script cannot read the session');

    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${server.url}/home`);
    await page.waitForURL(/\/sign-in\?from=%2Fhome/);
    await page.context().close();
  });

  test('a wrong password shows the list of reasons with the reset and SSO links', async () => {
    await createUser('bob@example.com');
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page);
    await submitSignIn(page, 'bob@example.com', 'not the password');
    const alert = page.getByRole('alert');
    await alert.getByText("We couldn't sign you in.", { exact: false }).waitFor();
    assert.equal(await alert.getByRole('listitem').count(), 3);
    assert.equal(await alert.getByRole('link', { name: 'Reset your password' }).getAttribute('href'), '/forgot-password');
    assert.equal(await alert.getByRole('link', { name: 'Sign in with SSO' }).getAttribute('href'), '/sso-sign-in?email=bob%40example.com');
    assert.deepEqual(await axeViolations(page), [], 'axe with the failure list shown');
    await screenshot(page, 'sign-in-failure');

    // An unknown email reads exactly the same: nothing tells who has an account.
    const knownText = await alert.innerText();
    assert.equal(await submitSignIn(page, 'nobody@example.com', 'not the password'), 401);
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByRole('alert').innerText(), knownText);
    await page.context().close();
  });

  test('repeated failures lock the account with the spec text, even for the right password', async () => {
    await createUser('carol@example.com');
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page);
    const locked = 'Due to too many failed sign in attempts, your account has been locked for 30 minutes.';
    for (let attempt = 1; attempt <= 9; attempt++) {
      assert.equal(await submitSignIn(page, 'carol@example.com', `wrong ${attempt}`), 401);
    }
    assert.equal(await page.getByText(locked).count(), 0, 'not locked before the threshold');
    assert.equal(await submitSignIn(page, 'carol@example.com', 'wrong 10'), 423);
    await page.getByText(locked).waitFor();
    assert.equal(await submitSignIn(page, 'carol@example.com', PASSWORD), 423);
    await page.getByText(locked).waitFor();
    assert.equal(page.url().includes('/home'), false);
    await screenshot(page, 'sign-in-locked');

    // The operator can lift the lock.
    await server.admin('user', 'unlock', '--email', 'carol@example.com');
    await submitSignIn(page, 'carol@example.com', PASSWORD);
    await page.waitForURL(`${server.url}/home`);
    await page.context().close();
  });

  test('a deactivated account shows its text after the right password', async () => {
    await createUser('dan@example.com');
    await server.admin('user', 'deactivate', '--email', 'dan@example.com');
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page);
    await submitSignIn(page, 'dan@example.com', PASSWORD);
    await page.getByText('Your account is deactivated. Please contact your organization administrator.').waitFor();
    await page.context().close();
  });

  test('an unverified account shows its text', async () => {
    await createUser('erin@example.com', '--unverified');
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page);
    await submitSignIn(page, 'erin@example.com', PASSWORD);
    await page.getByText('This email is unverified. Please check your inbox.').waitFor();
    await page.context().close();
  });

  test('an unsafe from is ignored and a safe one is followed', async () => {
    await createUser('fay@example.com');
    for (const unsafe of ['https://evil.example/steal', '//evil.example', '/%2F%2Fevil.example', 'javascript:alert(1)']) {
      const page = await (await newContext(browser)).newPage();
      await openSignIn(page, `?from=${encodeURIComponent(unsafe)}`);
      await submitSignIn(page, 'fay@example.com', PASSWORD);
      await page.waitForURL(`${server.url}/home`);
      await page.context().close();
    }
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page, `?from=${encodeURIComponent('/home?tab=snippets')}`);
    await submitSignIn(page, 'fay@example.com', PASSWORD);
    await page.waitForURL(`${server.url}/home?tab=snippets`);
    await page.context().close();
  });

  test('an expired session reason shows its text', async () => {
    const page = await (await newContext(browser)).newPage();
    await openSignIn(page, '?reason=sessionExpired');
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await page.context().close();
  });

  test('a German browser reads German, on a phone too', async () => {
    const page = await (await newContext(browser, { locale: 'de-DE', phone: true })).newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByRole('heading', { name: de['signIn.title'] }).waitFor();
    await page.getByLabel(de['common.password'], { exact: true }).waitFor();
    await page.getByRole('button', { name: de['signIn.submit'], exact: true }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.deepEqual(await axeViolations(page), [], 'axe on the German phone layout');
    await screenshot(page, 'sign-in-de-phone');
    await page.context().close();
  });

  test('the root and unknown paths fall back to sign-in', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/`);
    await page.waitForURL(`${server.url}/sign-in`);
    await page.goto(`${server.url}/no/such/page`);
    await page.waitForURL(`${server.url}/sign-in`);
    await page.context().close();
  });
});
