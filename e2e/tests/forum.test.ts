import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { StandInForum } from '../src/forum.ts';
import { axeViolations, launchBrowser, newContext, type RunningServer, screenshot, startServer } from '../src/harness.ts';
import { MailCapture, linkTo } from '../src/mailbox.ts';

// The forum's secret, shared by Foyer and the stand-in forum, as an operator would set it.
const SECRET = 'e2e-forum-secret-0123456789';
const PASSWORD = 'violet harbour compass 17';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let forum: StandInForum;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

before(async () => {
  forum = new StandInForum(SECRET, () => server.url);
  await forum.start();
  mail = new MailCapture();
  await mail.start();
  // `local`: the terms page is Foyer's own stand-in (decision 0021) and Google its stand-in
  // provider (decision 0019), so nothing here reaches beyond this machine.
  server = await startServer({
    FOYER_ENV: 'local',
    GOOGLE_STAND_IN_PORT: String(await freePort()),
    DISCOURSE_CONNECT_SECRET: SECRET,
    FLAGS: 'discourse-sso=true',
    SERVER_URLS: JSON.stringify({ community: forum.url }),
    SMTP_URL: mail.url,
    MAIL_POLL_MS: '200',
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await mail?.stop();
  await forum?.stop();
});

async function noAxeViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${what}`);
}

function userIdOf(email: string): string {
  const db = new Database(server.databasePath, { readonly: true });
  try {
    const row = db.prepare('select id from users where email_key = ?').get(email.toLowerCase()) as { id: string } | undefined;
    if (row === undefined) throw new Error(`no account for ${email}`);
    return row.id;
  } finally {
    db.close();
  }
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

async function newMember(prefix: string): Promise<string> {
  const email = `${prefix}-${randomBytes(4).toString('hex')}@example.com`;
  await server.admin('user', 'create', '--email', email, '--password', PASSWORD, '--first-name', 'Fern', '--last-name', 'Ito');
  return email;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** The terms step as a person takes it: Accept waits for the frame and the box. */
async function acceptTerms(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Community terms' }).waitFor();
  const accept = page.getByRole('button', { name: 'Accept' });
  assert.equal(await accept.isDisabled(), true, 'Accept starts disabled');
  // The local terms page loads in its frame (served by Foyer in `local`, allowed by its CSP).
  await page
    .frameLocator('iframe[title="Foyer Community terms and conditions"]')
    .getByRole('heading', { name: 'Foyer Community terms and conditions' })
    .waitFor();
  await page.getByRole('checkbox', { name: 'I have read and accept the Foyer Community terms and conditions' }).check();
  await noAxeViolations(page, 'the terms, ticked');
  await accept.click();
}

/** Waits for the forum's own page after a signed answer it accepted, and returns that member. */
async function arrivedAtForum(page: Page, email: string) {
  await page.waitForURL((url) => url.href.startsWith(`${forum.url}/session/sso_login`));
  await page.getByText(`Signed in to the forum as ${email}`).waitFor();
  const member = forum.members.at(-1);
  assert.ok(member);
  return member;
}

describe('forum sign-in in Chromium, with a stand-in Discourse', () => {
  test('signed out: the choices, sign in, the terms, accept, and into the forum with the right identity', async () => {
    const email = await newMember('fern');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${forum.url}/session/sso`);
    await page.getByRole('heading', { level: 1, name: 'Join the Foyer Community' }).waitFor();
    await noAxeViolations(page, 'the forum choices');
    await screenshot(page, 'forum-choices');
    assert.equal(await page.getByRole('link', { name: 'Privacy Policy (opens in a new tab)' }).getAttribute('target'), '_blank');

    await page.getByRole('link', { name: 'Sign In with Foyer' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
    await signIn(page, email);
    // The terms open inside the app (a client-side move), so the heading is what to wait for.
    await page.getByRole('heading', { level: 1, name: 'Community terms' }).waitFor();
    await noAxeViolations(page, 'the terms');
    await screenshot(page, 'forum-terms');
    // The terms frame is reached with Tab (to scroll it with the keys) and shows where focus is.
    const frame = page.locator('iframe.terms-frame');
    for (let i = 0; i < 12 && !(await frame.evaluate((element) => element === document.activeElement)); i++) await page.keyboard.press('Tab');
    assert.equal(await frame.evaluate((element) => element === document.activeElement), true, 'Tab reaches the terms frame');
    await page.waitForFunction(() => getComputedStyle(document.querySelector('iframe.terms-frame') as Element).outlineStyle === 'solid', null, {
      timeout: 2000,
    });
    await acceptTerms(page);

    const member = await arrivedAtForum(page, email);
    assert.equal(member.email, email);
    assert.equal(member.externalId, userIdOf(email));
    assert.equal(member.requireActivation, 'false');
    assert.equal(member.name, 'Fern Ito');
    for (const key of ['admin', 'moderator', 'add_groups', 'groups']) assert.equal(key in member.fields, false, key);
    assert.deepEqual(forum.refusals, []);

    // Agreed once: the next forum visit goes straight through, the loading screen only in passing.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/community/discourseSso', async (route) => {
      await held;
      await route.continue();
    });
    const visited: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
    });
    await page.goto(`${forum.url}/session/sso`);
    await page.getByRole('heading', { level: 1, name: 'Signing into Community' }).waitFor();
    await noAxeViolations(page, 'signing into the community');
    release();
    const again = await arrivedAtForum(page, email);
    assert.equal(again.externalId, member.externalId);
    assert.notEqual(again.nonce, member.nonce);
    assert.equal(visited.includes('/discourse-terms'), false, 'no terms the second time');
    assert.equal(await page.evaluate(() => localStorage.getItem('discoursePending')), null);
    await page.context().close();
  });

  test('cancelling the terms goes to the community site and leaves nothing pending', async () => {
    const email = await newMember('gus');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/sign-in`);
    await signIn(page, email);
    await page.waitForURL(`${server.url}/home`);
    const signedInBefore = forum.members.length;
    await page.goto(`${forum.url}/session/sso`);
    await page.getByRole('heading', { level: 1, name: 'Community terms' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${forum.url}/`);
    await page.getByRole('heading', { name: 'Foyer Community' }).waitFor();
    assert.equal(forum.members.length, signedInBefore, 'nobody signed in to the forum');
    // Back on Foyer: sign-in is not bounced away by a stale forum-pending flag.
    await page.goto(`${server.url}/home`);
    assert.equal(await page.evaluate(() => localStorage.getItem('discoursePending')), null);
    await page.context().close();
  });

  test('a new account through Create Account ends in the forum', async () => {
    const email = `hana-${randomBytes(4).toString('hex')}@example.com`;
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${forum.url}/session/sso`);
    await page.getByRole('link', { name: 'Create Account' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-up');
    await page.getByLabel('First name').fill('Hana');
    await page.getByLabel('Last name').fill('Berg');
    await page.getByLabel('Work email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Get Started' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();

    // The person opens the mail's link in the same browser and finishes without retyping.
    const link = linkTo(await mail.waitFor(email, /Foyer/), '/verify-email/');
    await page.goto(link);
    await acceptTerms(page);
    const member = await arrivedAtForum(page, email);
    assert.equal(member.externalId, userIdOf(email));
    assert.equal(member.requireActivation, 'false');
    assert.equal(signupSourceOf(email), 'auth/sign-up/community');
    await page.context().close();
  });

  test('Continue with Google from the forum choices ends in the forum', async () => {
    const email = `iris-${randomBytes(4).toString('hex')}@example.com`;
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${forum.url}/session/sso`);
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await page.getByLabel('Email', { exact: true }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('First name').fill('Iris');
    await page.getByLabel('Last name').fill('Moss');
    await page.getByRole('button', { name: 'Continue' }).click();
    await acceptTerms(page);
    const member = await arrivedAtForum(page, email);
    assert.equal(member.externalId, userIdOf(email));
    assert.equal(signupSourceOf(email), 'auth/sign-up/community');
    await page.context().close();
  });

  test('the device hand-off signs the browser in with a one-time token, which then no longer works', async () => {
    // A native app's Google sign-in gives it a transfer token (decision 0019), which it hands to the browser.
    const app = await (await newContext(browser)).newPage();
    await app.goto(`${server.url}/social-auth?native=true&useTransferToken=true&from=${encodeURIComponent('foyer://signin')}`);
    await app.getByLabel('Email', { exact: true }).waitFor();
    const email = `jo-${randomBytes(4).toString('hex')}@example.com`;
    await app.getByLabel('Email', { exact: true }).fill(email);
    await app.getByLabel('First name').fill('Jo');
    await app.getByLabel('Last name').fill('Park');
    await app.getByRole('button', { name: 'Continue' }).click();
    const href = await app.getByRole('link', { name: 'Open the app' }).getAttribute('href');
    const token = new URL(href ?? '').searchParams.get('transferToken') ?? '';
    await app.context().close();

    const deviceId = randomBytes(9).toString('base64url');
    const handOff = `${server.url}/device-hand-off?${new URLSearchParams({ deviceId, otter: token }).toString()}`;
    const page = await (await newContext(browser)).newPage();
    await page.goto(handOff);
    // The page names the account and signs in only when the person continues (login CSRF).
    await page.getByText(`Sign in to this browser as ${email}?`).waitFor();
    await noAxeViolations(page, 'the hand-off question');
    await screenshot(page, 'hand-off-question');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/home`);
    await page.getByText('Signed in as Jo Park').waitFor();
    const cookies = await page.context().cookies();
    assert.equal(cookies.find((cookie) => cookie.name === 'deviceId_local')?.value, deviceId);
    assert.equal(cookies.find((cookie) => cookie.name === 'otter_local')?.httpOnly, true);
    assert.equal(JSON.stringify(cookies).includes(token), false, 'the one-time token is kept nowhere');
    await page.goBack();
    assert.equal(page.url().includes(token), false, 'the token left the history');
    await page.context().close();

    const replay = await (await newContext(browser)).newPage();
    await replay.goto(handOff);
    await replay.getByText('This sign-in link is invalid or has expired. Please sign in again from the app.').waitFor();
    assert.equal(replay.url(), `${server.url}/device-hand-off`);
    await noAxeViolations(replay, 'the spent hand-off');
    await replay.context().close();
  });

  test('a stored one-time token is exchanged for a device token, which signs in to the forum without a session cookie', async () => {
    // A session of this account on a device (as a native app holds one), with the terms agreed.
    const email = await newMember('kai');
    const first = await (await newContext(browser)).newPage();
    await first.goto(`${forum.url}/session/sso`);
    await first.getByRole('link', { name: 'Sign In with Foyer' }).click();
    await first.waitForURL((url) => url.pathname === '/sign-in');
    await signIn(first, email);
    await acceptTerms(first);
    const member = await arrivedAtForum(first, email);
    const otter = (await first.context().cookies()).find((cookie) => cookie.name === 'otter_local')?.value ?? '';
    // Back on Foyer's origin, whose storage holds the device id the session is bound to.
    await first.goto(`${server.url}/healthz`);
    const deviceId = await first.evaluate(() => localStorage.getItem('deviceId'));
    assert.notEqual(otter, '', 'the session cookie');
    assert.ok(deviceId !== null, 'the device id');
    await first.context().close();

    // Another browser holds only the device id and the one-time token (spec §3, §4): no cookie.
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/discourse-sso`);
    await page.evaluate(
      ({ id, token }) => {
        localStorage.setItem('deviceId', id);
        localStorage.setItem('otterToken', token);
      },
      { id: deviceId, token: otter },
    );
    const forumCalls: Array<{ path: string; authorization: string | undefined; cookie: string | undefined }> = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (!pathname.startsWith('/api/community/') && !pathname.startsWith('/api/exchange/')) return;
      const headers = request.headers();
      forumCalls.push({ path: pathname, authorization: headers.authorization, cookie: headers.cookie });
    });
    for (const round of [1, 2]) {
      await page.goto(`${forum.url}/session/sso`);
      const arrived = await arrivedAtForum(page, email);
      assert.equal(arrived.externalId, member.externalId, `round ${round}`);
    }
    await page.goto(`${server.url}/healthz`);
    const deviceToken = await page.evaluate(() => localStorage.getItem('deviceToken'));
    assert.ok(deviceToken !== null && deviceToken !== otter, 'a device token was stored');
    assert.equal(await page.evaluate(() => localStorage.getItem('otterToken')), null, 'the one-time token was cleared');
    assert.deepEqual(
      forumCalls.map(({ path, authorization }) => [path, authorization]),
      [
        ['/api/exchange/otterToken', undefined],
        ['/api/community/discourseSso', `Bearer ${deviceToken}`],
        ['/api/community/discourseSso', `Bearer ${deviceToken}`],
      ],
    );
    assert.equal(
      forumCalls.some(({ cookie }) => cookie?.includes('otter_local=') === true),
      false,
      'no session cookie went along',
    );
    assert.equal(
      (await page.context().cookies()).some((cookie) => cookie.name === 'otter_local'),
      false,
    );
    await page.context().close();
  });

  test('a request that is not the forum’s own shows the error, and reaches nobody', async () => {
    const page = await (await newContext(browser)).newPage();
    const { sso } = forum.request();
    await page.goto(`${server.url}/discourse-sso?${new URLSearchParams({ sso, sig: '0'.repeat(64) }).toString()}`);
    await page.getByRole('alert').getByText('An error occurred. Please try again.').waitFor();
    await noAxeViolations(page, 'the forum error');
    await page.context().close();
  });
});
