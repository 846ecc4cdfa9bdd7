import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, newContext, type RunningServer, screenshot, startMailStack } from '../src/harness.ts';
import { linkTo, type MailCapture } from '../src/mailbox.ts';

/**
 * An organisation that requires SSO (decision 0022), as its people meet it: password sign-in
 * points them to SSO sign-in with their address filled in, and an invitation mails a link there
 * instead of a password setup link.
 */

const ORG = 'Umbrella';
const DOMAIN = 'umbrella.example';
const INVITEE = `jill@${DOMAIN}`;
const SSO_TEXT = 'This email belongs to an organization with Single Sign-On (SSO) enabled, and cannot be used to sign up.';

let server: RunningServer;
let browser: Browser;
let mail: MailCapture;
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  ({ server, browser, mail, stop } = await startMailStack());
  // As an administrator sets it up: the organisation, its domain with SSO required, a member.
  await server.admin('org', 'create', '--name', ORG);
  await server.admin('org', 'claim-domain', '--org', ORG, '--domain', DOMAIN, '--sso-required');
  await server.admin('invite', '--org', ORG, '--email', INVITEE);
});

after(() => stop());

async function noAxeViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${what}`);
}

/** SSO sign-in, opened with the address in its field. */
async function ssoSignInFilledWith(page: Page, email: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/sso-sign-in');
  const field = page.getByLabel('Email', { exact: true });
  await field.waitFor();
  assert.equal(await field.inputValue(), email);
  assert.equal(await page.getByRole('button', { name: 'Sign In', exact: true }).isEnabled(), true);
}

describe('an organisation that requires SSO, in Chromium', () => {
  test('password sign-in points a member and a stranger of the domain to SSO sign-in, address filled in', async () => {
    const page = await (await newContext(browser)).newPage();
    for (const email of [INVITEE, `nobody@${DOMAIN}`]) {
      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill('any password at all');
      await page.getByRole('button', { name: 'Sign In', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.getByText('Your organization signs you in through SSO, so there is no password to enter here.').waitFor();
      // Spec §8's ssoRequired text speaks of signing up: not shown on sign-in.
      assert.equal(await alert.getByText(SSO_TEXT).count(), 0);
      // No password helps: the focus is on the way forward.
      await page.waitForFunction(() => document.activeElement?.textContent === 'Sign in with SSO');
      await noAxeViolations(page, `sign-in refused for ${email}`);
      if (email === INVITEE) await screenshot(page, 'sign-in-sso-required');
      await alert.getByRole('link', { name: 'Sign in with SSO' }).click();
      await ssoSignInFilledWith(page, email);
    }
    await noAxeViolations(page, 'SSO sign-in with the address filled in');
    await screenshot(page, 'sso-sign-in-filled');
    await page.context().close();
  });

  test('the invitation mails a link to SSO sign-in with the address, and no password setup link', async () => {
    const invitation = await mail.waitFor(INVITEE, new RegExp(ORG));
    assert.match(invitation.text, /there is no password to choose/);
    assert.equal(
      invitation.links.some((link) => new URL(link).pathname.startsWith('/setup-account/')),
      false,
    );
    const link = linkTo(invitation, '/sso-sign-in');
    assert.equal(link, `${server.url}/sso-sign-in?email=${encodeURIComponent(INVITEE)}`);

    const page = await (await newContext(browser)).newPage();
    await page.goto(link);
    await ssoSignInFilledWith(page, INVITEE);
    await noAxeViolations(page, 'SSO sign-in opened from the invitation');
    await page.context().close();
  });
});
