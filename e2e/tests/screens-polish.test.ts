import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, newContext, type RunningServer, screenshot, startMailStack } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

const PASSWORD = 'amber kettle orchard 58';
const NEW_PASSWORD = 'silver pigeon meadow 31';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  ({ server, browser, mail, stop } = await startMailStack());
});

after(() => stop());

type Theme = 'light' | 'dark';

async function themedContext(theme: Theme, options: { phone?: boolean } = {}): Promise<BrowserContext> {
  const context = await newContext(browser, options);
  // Every page of the context follows the system setting, as a person's browser would.
  context.on('page', (page) => void page.emulateMedia({ colorScheme: theme }));
  return context;
}

async function newThemedPage(theme: Theme, options: { phone?: boolean } = {}): Promise<Page> {
  const page = await (await themedContext(theme, options)).newPage();
  await page.emulateMedia({ colorScheme: theme });
  return page;
}

async function createUser(email: string): Promise<void> {
  await server.admin('user', 'create', '--email', email, '--password', PASSWORD, '--first-name', 'Noor', '--last-name', 'Haddad');
}

async function signIn(page: Page, email: string, password = PASSWORD, query = ''): Promise<void> {
  await page.goto(`${server.url}/sign-in${query}`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
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

async function resetLink(email: string): Promise<string> {
  const before = mail.count(email);
  const page = await (await newContext(browser)).newPage();
  await page.goto(`${server.url}/forgot-password`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
  await page.getByText(/We sent a reset email/).waitFor();
  await page.context().close();
  return linkTo(await nextMail(email, before, /password/i), '/reset-password/');
}

async function invitationLink(org: string, email: string): Promise<string> {
  const before = mail.count(email);
  await server.admin('org', 'create', '--name', org);
  await server.admin('invite', '--org', org, '--email', email);
  return linkTo(await nextMail(email, before, /./), '/setup-account/');
}

/** Records, from before the page's own script runs, whether a password field ever appeared. */
async function watchForForm(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen = () => {
      if (document.querySelector('input[type="password"]')) sessionStorage.setItem('sawForm', 'yes');
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true });
  });
}

/**
 * A key typed with Caps Lock on or off. Chromium's automation cannot hold the lock itself (the
 * DevTools protocol has no Caps Lock modifier), so the key events carry the state the operating
 * system would give them, dispatched in the page to the focused field.
 */
async function typeWithCapsLock(page: Page, on: boolean): Promise<void> {
  await page.evaluate((capsLock) => {
    const target = document.activeElement ?? document.body;
    for (const type of ['keydown', 'keyup']) {
      target.dispatchEvent(new KeyboardEvent(type, { key: capsLock ? 'A' : 'a', bubbles: true, modifierCapsLock: capsLock }));
    }
  }, on);
}

async function sawForm(page: Page): Promise<boolean> {
  return (await page.evaluate(() => sessionStorage.getItem('sawForm'))) === 'yes';
}

describe('signed-in people and the entry screens (decision 0020)', () => {
  test('sign-in and sign-up send a signed-in person on, without a flash of the form', async () => {
    await createUser('noor@example.com');
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, 'noor@example.com');
    await page.waitForURL(`${server.url}/home`);

    const again = await context.newPage();
    await watchForForm(again);
    await again.goto(`${server.url}/sign-in`);
    await again.waitForURL(`${server.url}/home`);
    await again.getByText('Signed in as Noor Haddad').waitFor();
    assert.equal(await sawForm(again), false, 'the sign-in form never showed');

    await again.goto(`${server.url}/sign-in?from=${encodeURIComponent('/home?tab=1')}`);
    await again.waitForURL(`${server.url}/home?tab=1`);

    // An address outside the allow-list is ignored, as after signing in.
    await again.goto(`${server.url}/sign-up?from=${encodeURIComponent('https://evil.example/')}`);
    await again.waitForURL(`${server.url}/home`);
    assert.equal(await sawForm(again), false, 'the sign-up form never showed');

    // Signed out, the forms are there again.
    await again.getByRole('button', { name: 'Sign Out' }).click();
    await again.waitForURL(`${server.url}/sign-in`);
    await again.getByLabel('Password', { exact: true }).waitFor();
    await again.goto(`${server.url}/sign-up`);
    await again.getByLabel('Work email').waitFor();
    await context.close();
  });

  test('Back after signing in does not show the filled form', async () => {
    await createUser('omar@example.com');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).waitFor();
    await signIn(page, 'omar@example.com');
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Noor Haddad').waitFor();

    // Sign-in left the history when it sent the person on: Back goes to where they were before.
    await page.goBack();
    await page.waitForURL(`${server.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).waitFor();
    assert.equal(await page.locator('input[type="password"]').count(), 0);

    // Forward and Back again never lands on a sign-in form with the password in it.
    await page.goForward();
    await page.waitForURL(`${server.url}/home`);
    await page.goBack();
    await page.waitForURL(`${server.url}/forgot-password`);
    for (const value of await page.locator('input').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))) {
      assert.notEqual(value, PASSWORD);
    }
    await page.context().close();
  });
});

describe('password managers and first focus (decision 0020)', () => {
  test('sign-in names the username and current password; reset and setup mark new passwords', async () => {
    await createUser('pia@example.com');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in`);
    assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('autocomplete'), 'username');
    assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'current-password');

    await page.goto(await resetLink('pia@example.com'));
    const newPassword = page.getByLabel('New password', { exact: true });
    await newPassword.waitFor();
    assert.equal(await newPassword.getAttribute('autocomplete'), 'new-password');
    assert.equal(await newPassword.evaluate((input) => input === document.activeElement), true, 'the new password has focus');
    // The link's check on open names the account: password managers file the password under it.
    assert.equal(await page.locator('form input[autocomplete="username"]').inputValue(), 'pia@example.com');

    await page.goto(await invitationLink('Globex', 'gus@example.com'));
    await page.getByLabel('First name').waitFor();
    assert.equal(await page.locator('form input[autocomplete="username"]').inputValue(), 'gus@example.com');
    assert.equal(await page.getByLabel('First name').evaluate((input) => input === document.activeElement), true, 'the first field has focus');
    assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'new-password');
    assert.equal(await page.locator('input[type="password"]:not([autocomplete="new-password"])').count(), 0);
    await page.context().close();
  });

  test('a dead reset link takes the form away', async () => {
    await createUser('quentin@example.com');
    const link = await resetLink('quentin@example.com');
    const page = await (await newContext(browser)).newPage();
    // A spent link is dead: use it once, then again.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password', { exact: true }).press('Enter');
    await page.getByText('Your password was updated.').waitFor();
    // Checked when the page opens (decision 0020): the dead link says so before anyone types.
    await page.goto(link);
    await page.getByText('This link is invalid or has expired.').waitFor();
    assert.equal(await page.getByLabel('New password', { exact: true }).count(), 0, 'the form is gone');
    assert.equal(await page.getByRole('button', { name: 'Change Password' }).count(), 0);
    await page.context().close();
  });
});

describe('smaller things a person notices (decision 0020)', () => {
  test('a caps-lock notice on password fields', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in`);
    const password = page.getByLabel('Password', { exact: true });
    await password.click();
    await password.press('a');
    assert.equal(await page.getByText('Caps Lock is on').count(), 0);
    await typeWithCapsLock(page, true);
    await page.getByText('Caps Lock is on').waitFor();
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    assert.equal(await page.locator(`[id="${describedBy}"]`).textContent(), 'Caps Lock is on');
    await typeWithCapsLock(page, false);
    await page.getByText('Caps Lock is on').waitFor({ state: 'detached' });
    // Not on other fields.
    await page.getByLabel('Email', { exact: true }).click();
    await typeWithCapsLock(page, true);
    assert.equal(await page.getByText('Caps Lock is on').count(), 0);
    await page.context().close();
  });

  test('forgot password judges the email when it is left, and leads back to sign-in', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/forgot-password`);
    const email = page.getByLabel('Email', { exact: true });
    await email.pressSequentially('ann');
    assert.equal(await page.getByText('Email address is not valid').count(), 0, 'not judged while typing');
    assert.equal(await page.getByRole('button', { name: 'Email Reset Password Link' }).isDisabled(), true);
    await email.press('Tab');
    await page.getByText('Email address is not valid').waitFor();
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    await email.pressSequentially('@example.com');
    assert.equal(await page.getByText('Email address is not valid').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Email Reset Password Link' }).isEnabled(), true);

    await page.getByRole('link', { name: 'Back to Sign In' }).click();
    await page.waitForURL(`${server.url}/sign-in`);
    await page.context().close();
  });

  test('forgot password for an SSO organisation says what it means and points to SSO sign-in', async () => {
    await server.admin('org', 'create', '--name', 'Initech', '--domain', 'initech.example', '--sso-required');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/forgot-password`);
    await page.getByLabel('Email', { exact: true }).fill('milton@initech.example');
    await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.').waitFor();
    await alert.getByText(/there is no password to reset here/).waitFor();
    assert.equal(await alert.getByRole('link', { name: 'Sign in with SSO' }).getAttribute('href'), '/sso-sign-in?email=milton%40initech.example');
    // Focus stays where the person goes on typing.
    assert.equal(await page.getByLabel('Email', { exact: true }).evaluate((input) => input === document.activeElement), true);
    assert.deepEqual(await axeViolations(page), [], 'axe on the SSO answer');
    await page.context().close();
  });

  test('the sign-in page keeps `from` on its Sign Up link, and /favicon.ico is an icon', async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in?from=${encodeURIComponent('/home')}`);
    assert.equal(await page.getByRole('link', { name: 'Sign Up' }).getAttribute('href'), '/sign-up?from=%2Fhome');
    const icon = await page.request.get(`${server.url}/favicon.ico`);
    assert.equal(icon.status(), 200);
    assert.match(icon.headers()['content-type'] ?? '', /^image\//);
    await page.context().close();
  });
});

describe('both themes (decision 0020)', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`axe passes on every entry screen in the ${theme} theme`, async () => {
      await createUser(`${theme}@example.com`);
      const page = await newThemedPage(theme);
      const check = async (what: string) => assert.deepEqual(await axeViolations(page), [], `axe on ${what} (${theme})`);
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel('Password', { exact: true }).waitFor();
      // The theme is really applied: a dark page has a dark background.
      const [red = 0] = (await background()).match(/\d+/g)?.map(Number) ?? [];
      assert.equal(red < 64, theme === 'dark', `body background in ${theme}: ${await background()}`);
      await check('sign-in');
      await signIn(page, `${theme}@example.com`, 'wrong password 123');
      await page.getByRole('alert').waitFor();
      await check('the sign-in failure');

      await page.goto(`${server.url}/sign-up`);
      await page.getByLabel('Work email').waitFor();
      await page.getByLabel('Password', { exact: true }).fill('weakpass');
      await page.getByRole('meter').waitFor();
      await page.getByRole('button', { name: 'Get Started' }).click();
      await page.getByText('First name is required').waitFor();
      await check('sign-up with errors');

      await page.goto(`${server.url}/forgot-password`);
      await page.getByLabel('Email', { exact: true }).fill('ann@');
      await page.getByLabel('Email', { exact: true }).press('Tab');
      await page.getByText('Email address is not valid').waitFor();
      await check('forgot password');

      await page.goto(await resetLink(`${theme}@example.com`));
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('New password', { exact: true }).press('Enter');
      await page.getByText('Password must be at least 8 characters').waitFor();
      await check('reset password');

      await page.goto(await invitationLink(`Theme ${theme}`, `invitee-${theme}@example.com`));
      await page.getByLabel('First name').waitFor();
      await check('account setup');
      await page.context().close();
    });
  }
});

/**
 * Screenshots of every screen, both themes, desktop and phone, for a person to look at: taken
 * only when SCREENSHOTS_DIR is set (harness.screenshot).
 */
describe('screenshots', { skip: process.env.SCREENSHOTS_DIR === undefined }, () => {
  test('every entry screen at 1280×800 and 390×844, light and dark', async () => {
    await createUser('ann-marie.lee-smith@long-company-name.example');
    for (const phone of [false, true]) {
      for (const theme of ['light', 'dark'] as const) {
        const size = phone ? 'phone' : 'desktop';
        const shot = (page: Page, name: string) => screenshot(page, `${name}-${size}-${theme}`);
        const page = await newThemedPage(theme, { phone });

        await page.goto(`${server.url}/sign-in?from=%2Fhome`);
        await page.getByLabel('Password', { exact: true }).waitFor();
        await shot(page, 'sign-in');
        await signIn(page, 'nobody@example.com', 'wrong password 123');
        await page.getByRole('alert').waitFor();
        await typeWithCapsLock(page, true);
        await page.getByText('Caps Lock is on').waitFor();
        await shot(page, 'sign-in-failure');

        await page.goto(`${server.url}/sign-up`);
        await page.getByLabel('Work email').waitFor();
        await shot(page, 'sign-up');
        await page.getByLabel('Password', { exact: true }).fill('password1');
        await page.getByRole('button', { name: 'Get Started' }).click();
        await page.getByText('First name is required').waitFor();
        await page.getByRole('meter').waitFor();
        await shot(page, 'sign-up-errors');
        await page.getByLabel('First name').fill('Ann-Marie');
        await page.getByLabel('Last name').fill('Lee-Smith');
        await page.getByLabel('Work email').fill(`ann-marie.lee-smith-${size}-${theme}@long-company-name.example`);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Get Started' }).click();
        await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
        await shot(page, 'check-email');

        await page.goto(`${server.url}/forgot-password`);
        await page.getByLabel('Email', { exact: true }).fill('ann@');
        await page.getByLabel('Email', { exact: true }).press('Tab');
        await shot(page, 'forgot-password');
        await page.getByLabel('Email', { exact: true }).fill('nobody@example.com');
        await page.getByRole('button', { name: 'Email Reset Password Link' }).click();
        await page.getByText(/We sent a reset email/).waitFor();
        await shot(page, 'forgot-password-done');

        await page.goto(await resetLink('ann-marie.lee-smith@long-company-name.example'));
        await page.getByLabel('New password', { exact: true }).fill('qwertyuiop');
        await page.getByRole('meter').waitFor();
        await shot(page, 'reset-password');
        await page.goto(`${server.url}/reset-password/not-a-real-token-at-all-0000`);
        await page.getByText('This link is invalid or has expired.').waitFor();
        await shot(page, 'reset-password-dead-link');

        await page.goto(await invitationLink(`Shots ${size} ${theme}`, `invitee-${size}-${theme}@example.com`));
        await page.getByLabel('First name').waitFor();
        await shot(page, 'setup-account');
        await page.goto(`${server.url}/setup-account/not-a-real-token-at-all-0000`);
        await page.getByRole('alert').waitFor();
        await shot(page, 'setup-account-dead-link');

        await signIn(page, 'ann-marie.lee-smith@long-company-name.example');
        await page.waitForURL(`${server.url}/home`);
        await page.getByText(/Signed in as/).waitFor();
        await shot(page, 'home');
        await page.context().close();
      }
    }
    // A narrow phone: nothing may wrap awkwardly at 320 px.
    for (const theme of ['light', 'dark'] as const) {
      const context = await browser.newContext({
        viewport: { width: 320, height: 640 },
        locale: 'de-DE',
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
      });
      const page = await context.newPage();
      await page.emulateMedia({ colorScheme: theme });
      for (const path of ['/sign-in', '/sign-up', '/forgot-password']) {
        await page.goto(`${server.url}${path}`);
        await page.locator('input').first().waitFor();
        await screenshot(page, `narrow-de${path.replace(/\//g, '-')}-${theme}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0, `no sideways scrolling on ${path} at 320 px`);
      }
      await context.close();
    }
  });
});
