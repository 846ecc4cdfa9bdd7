import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchBrowser, newContext, type RunningServer, screenshot, startServer } from '../src/harness.ts';
import { type OidcIdp, startOidcIdp } from '../src/oidc-idp.ts';
import { type SamlIdp, simpleSamlPhpMissing, startSamlIdp } from '../src/saml-idp.ts';

// Company single sign-on (decision 0022) through real identity providers: Debian's SimpleSAMLphp
// for SAML 2.0 and oidc-provider for OpenID Connect, each with its own login page.

const SAML_MISSING = simpleSamlPhpMissing();
const SAML_SKIP =
  SAML_MISSING !== undefined && process.env.REQUIRE_SAML_IDP !== '1'
    ? `SimpleSAMLphp is not installed here (${SAML_MISSING}): the SAML sign-in tests are skipped. Run \`node scripts/ensure-simplesamlphp.mjs\` to install it.`
    : false;
if (SAML_SKIP !== false) console.warn(SAML_SKIP);

const PASSWORD = 'correct horse battery staple';
const ACME = 'acme.example';
const INITECH = 'initech.example';
const GLOBEX = 'globex.example';

let server: RunningServer;
let browser: Browser;
let oidc: OidcIdp;
let acmeId = '';
const contexts: BrowserContext[] = [];
/** Requests held by `hold`, let go at the end whatever happened. */
const held: Array<() => void> = [];
/** No step waits for ever: a test that stalls fails with what it was waiting for. */
const TEST_TIMEOUT = { timeout: 90_000 };

/** The organisation's id, as `org create` prints it. */
async function createOrg(name: string, domain: string): Promise<string> {
  const { stdout } = await server.admin('org', 'create', '--name', name, '--domain', domain);
  return stdout.trim();
}

/** The address in one line of what the `sso add-*` command printed. */
function printed(stdout: string, label: RegExp): string {
  const line = stdout.split('\n').find((text) => label.test(text));
  const url = line === undefined ? undefined : /(https?:\/\/\S+)\s*$/.exec(line)?.[1];
  if (url === undefined) throw new Error(`no ${String(label)} in:\n${stdout}`);
  return url;
}

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  oidc = await startOidcIdp([
    { username: 'bea', password: 'bea-password', email: `bea@${ACME}`, givenName: 'Bea', familyName: 'Jones' },
    { username: 'carl', password: 'carl-password', email: `carl@${ACME}`, givenName: 'Carl', familyName: 'Diaz' },
    { username: 'dan', password: 'dan-password', email: 'dan@unclaimed.example', givenName: 'Dan', familyName: 'Ng' },
    { username: 'erin', password: 'erin-password', email: `erin@${ACME}`, givenName: 'Erin', familyName: 'Moss' },
    { username: 'ivy', password: 'ivy-password', email: `ivy@${INITECH}`, givenName: 'Ivy', familyName: 'Park' },
    { username: 'nat', password: 'nat-password', email: `nat@${ACME}`, givenName: 'Nat', familyName: 'Quinn' },
  ]);
  acmeId = await createOrg('Acme', ACME);
  await createOrg('Initech', INITECH);
  const redirectUris: string[] = [];
  for (const org of ['Acme', 'Initech']) {
    const { stdout } = await server.admin(
      'sso',
      'add-oidc',
      '--org',
      org,
      '--issuer',
      oidc.issuer,
      '--client-id',
      oidc.clientId,
      '--client-secret',
      oidc.clientSecret,
    );
    redirectUris.push(printed(stdout, /\/callback\s*$/));
  }
  oidc.registerClient(redirectUris);
}, TEST_TIMEOUT);

after(async () => {
  for (const release of held) release();
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.stop();
  await oidc?.stop();
});

async function freshPage(): Promise<Page> {
  const context = await newContext(browser);
  contexts.push(context);
  return context.newPage();
}

async function noAxeViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${what}`);
}

/** Types the work email on /sso-sign-in and presses Sign In; the browser leaves for the IdP. */
async function startSso(page: Page, email: string, options: { remember?: boolean } = {}): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  if (options.remember === true) await page.getByLabel('Remember email').check();
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** What a person does on the OpenID provider's own page. */
async function passCorpId(page: Page, username: string, password: string): Promise<void> {
  await page.waitForURL(`${oidc.issuer}/interaction/**`);
  await page.getByRole('heading', { name: 'Corp ID' }).waitFor();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The failure page of /sso-landing: spec §8's text and the raw code. */
async function expectLanding(page: Page, code: string, text: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/sso-landing');
  assert.equal(new URL(page.url()).searchParams.get('code'), code);
  await page.getByRole('heading', { name: "We couldn't sign you in with SSO" }).waitFor();
  await page.getByText(text).waitFor();
  await page.getByText(`Error code: ${code}`).waitFor();
}

interface Member {
  orgId: string | null;
  verified: boolean;
  issuer: string | undefined;
}

function memberRow(email: string): Member | undefined {
  const db = new Database(server.databasePath, { readonly: true });
  try {
    const user = db.prepare('select id, org_id, email_verified_at from users where email_key = ?').get(email.toLowerCase()) as
      { id: string; org_id: string | null; email_verified_at: number | null } | undefined;
    if (user === undefined) return undefined;
    const identity = db.prepare('select issuer from external_identities where user_id = ?').get(user.id) as { issuer: string } | undefined;
    return { orgId: user.org_id, verified: user.email_verified_at !== null, issuer: identity?.issuer };
  } finally {
    db.close();
  }
}

function userCount(email: string): number {
  const db = new Database(server.databasePath, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from users where email_key = ?').get(email.toLowerCase()) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Holds every request matching `pattern` until the returned function is called. */
async function hold(page: Page, pattern: string): Promise<() => void> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  held.push(release);
  await page.route(pattern, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

describe('company SSO through SimpleSAMLphp', { skip: SAML_SKIP }, () => {
  let saml: SamlIdp;
  let globexId = '';

  before(async () => {
    saml = await startSamlIdp([{ username: 'alice', password: 'alice-password', email: `alice@${GLOBEX}`, givenName: 'Alice', familyName: 'Smith' }]);
    globexId = await createOrg('Globex', GLOBEX);
    const { stdout } = await server.admin('sso', 'add-saml', '--org', 'Globex', '--metadata', saml.metadataUrl);
    await saml.trustServiceProvider(printed(stdout, /SP metadata:/));
  }, TEST_TIMEOUT);

  after(async () => {
    await saml?.stop();
  });

  test("a new member signs in on SimpleSAMLphp's login page and lands signed in", TEST_TIMEOUT, async () => {
    const page = await freshPage();
    // Where the browser went and what the IdP logged, for a failure's message.
    const went: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) went.push(frame.url().split('?')[0] ?? '');
    });
    try {
      await page.goto(`${server.url}/sso-sign-in`);
      await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor();
      await noAxeViolations(page, '/sso-sign-in');
      await screenshot(page, 'sso-sign-in');
      await startSso(page, ` alice@${GLOBEX} `);

      // SimpleSAMLphp's own login page (exampleauth:UserPass), reached through its SSO service.
      await page.waitForURL(`${saml.origin}/module.php/core/loginuserpass.php**`);
      await screenshot(page, 'sso-simplesamlphp-login');
      await page.getByRole('heading', { name: 'Enter your username and password' }).first().waitFor();
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('alice-password');
      // The exchange is held, so the transfer screen can be looked at while it signs in.
      const releaseExchange = await hold(page, '**/api/account/exchangeSSOTransferToken');
      let handOffAt = 0;
      page.on('request', (request) => {
        if (handOffAt === 0 && new URL(request.url()).pathname.startsWith('/ssol/')) handOffAt = Date.now();
      });
      await page.getByRole('button', { name: 'Login' }).click();

      // Back through the assertion consumer to the success page, which hands off after a second.
      await page.waitForURL((url) => url.pathname === '/sso-landing' && url.searchParams.has('transferToken'), { waitUntil: 'commit' });
      const landedAt = Date.now();
      await page.waitForURL((url) => url.pathname.startsWith('/ssol/'), { waitUntil: 'commit' });
      assert.ok(handOffAt - landedAt >= 1000, `the success page waits a second before it hands off (${handOffAt - landedAt} ms)`);
      await page.getByRole('heading', { name: 'Signing in with SSO' }).waitFor();
      await noAxeViolations(page, '/ssol (signing in)');
      await screenshot(page, 'ssol-signing-in');
      releaseExchange();

      await page.waitForURL(`${server.url}/home`);
      await page.getByText('Signed in as Alice Smith').waitFor();
      const member = memberRow(`alice@${GLOBEX}`);
      assert.equal(member?.orgId, globexId, 'a member of the organisation');
      assert.equal(member?.verified, true, 'with a verified email');
      assert.match(member?.issuer ?? '', /^sso:/, 'linked to the SAML connection');
    } catch (error) {
      throw new Error(`${String(error)}\nThe browser went: ${went.join(' → ')}\nSimpleSAMLphp:\n${saml.output().slice(-3000)}`, { cause: error });
    }
  });
});

describe('company SSO through an OpenID provider', () => {
  test("a new member signs in on the provider's login page and lands signed in where they were going", TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in?from=${encodeURIComponent('/home?tab=recent')}`);
    await startSso(page, `bea@${ACME}`);
    await page.getByRole('heading', { name: 'Corp ID' }).waitFor();
    await screenshot(page, 'sso-corp-id-login');
    await passCorpId(page, 'bea', 'bea-password');
    await page.waitForURL((url) => url.pathname === '/sso-landing' && url.searchParams.has('transferToken'));
    await page.waitForURL((url) => url.pathname.startsWith('/ssol/'));
    await page.waitForURL(`${server.url}/home?tab=recent`);
    await page.getByText('Signed in as Bea Jones').waitFor();
    const member = memberRow(`bea@${ACME}`);
    assert.equal(member?.orgId, acmeId, 'a member of the organisation');
    assert.equal(member?.verified, true, 'with a verified email');
    assert.match(member?.issuer ?? '', /^sso:/, 'linked to the OIDC connection');
  });

  test("Remember email makes sign-in forward to SSO, and 'Sign in without SSO' goes back for good", TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await startSso(page, `nat@${ACME}`, { remember: true });
    await page.waitForURL(`${oidc.issuer}/interaction/**`);

    const query = `from=${encodeURIComponent('/home')}&reason=sessionExpired`;
    await page.goto(`${server.url}/sign-in?${query}`);
    await page.waitForURL(`${server.url}/sso-sign-in?${query}`);
    assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), `nat@${ACME}`, 'the remembered address');
    assert.equal(await page.getByLabel('Remember email').isChecked(), true);
    await page.getByText('Your session has expired. Please sign in again.').waitFor();

    await page.getByRole('link', { name: 'Sign in without SSO' }).click();
    await page.waitForURL(`${server.url}/sign-in?${query}`);
    await page.getByLabel('Password', { exact: true }).waitFor();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Password', { exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in', 'no longer forwarded to SSO');
    assert.deepEqual(await page.evaluate(() => [localStorage.getItem('preferSso'), localStorage.getItem('ssoEmail')]), [null, null]);
  });

  test('1001: an account outside the organisation is refused, and nothing is linked', TEST_TIMEOUT, async () => {
    await server.admin('user', 'create', '--email', `carl@${ACME}`, '--password', PASSWORD, '--first-name', 'Carl', '--last-name', 'Diaz');
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await startSso(page, `carl@${ACME}`);
    await passCorpId(page, 'carl', 'carl-password');
    await expectLanding(page, '1001', 'Your account is not a member of this organization. Ask your organization administrator to add you.');
    await noAxeViolations(page, '/sso-landing (failure)');
    await screenshot(page, 'sso-landing-1001');
    assert.deepEqual(memberRow(`carl@${ACME}`), { orgId: null, verified: true, issuer: undefined });
  });

  test("1002: cancelling on the provider's page", TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await startSso(page, `bea@${ACME}`);
    await page.waitForURL(`${oidc.issuer}/interaction/**`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expectLanding(
      page,
      '1002',
      'The sign-in request could not be read. Your SSO connection is probably misconfigured; please contact your SSO admin.',
    );
  });

  test('1003: the provider asserts an address of a domain the organisation has not claimed', TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await startSso(page, `dan@${ACME}`);
    await passCorpId(page, 'dan', 'dan-password');
    await expectLanding(page, '1003', 'We could not create your account. Please contact support.');
    assert.equal(userCount('dan@unclaimed.example'), 0, 'no account was made');
  });

  test('1004: the provider changes a member’s address to one another account has', TEST_TIMEOUT, async () => {
    const first = await freshPage();
    await first.goto(`${server.url}/sso-sign-in`);
    await startSso(first, `erin@${ACME}`);
    await passCorpId(first, 'erin', 'erin-password');
    await first.waitForURL(`${server.url}/home`);

    await server.admin('user', 'create', '--email', `frank@${ACME}`, '--password', PASSWORD, '--first-name', 'Frank', '--last-name', 'Ito');
    oidc.changeEmail('erin', `frank@${ACME}`);
    const again = await freshPage();
    await again.goto(`${server.url}/sso-sign-in`);
    await startSso(again, `erin@${ACME}`);
    await passCorpId(again, 'erin', 'erin-password');
    await expectLanding(again, '1004', 'Another account already uses this email address. Please contact support.');
    assert.equal(memberRow(`erin@${ACME}`)?.orgId, acmeId, 'the member keeps the address they had');
  });

  test('1005: the connection is removed while the person is at the provider', TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-sign-in`);
    await startSso(page, `ivy@${INITECH}`);
    await page.waitForURL(`${oidc.issuer}/interaction/**`);
    await server.admin('sso', 'remove', '--org', 'Initech');
    await passCorpId(page, 'ivy', 'ivy-password');
    await expectLanding(page, '1005', "Your organization's SSO connection is misconfigured. Please contact your SSO admin.");
    assert.equal(userCount(`ivy@${INITECH}`), 0);
  });

  test('any other code: the unknown-error text, with the code only when it is a number', TEST_TIMEOUT, async () => {
    const page = await freshPage();
    await page.goto(`${server.url}/sso-landing?code=2417`);
    await page.getByText('An unknown error has occurred. Please contact support.').waitFor();
    await page.getByText('Error code: 2417').waitFor();
    await page.goto(`${server.url}/sso-landing?code=${encodeURIComponent('<b>call 555</b>')}`);
    await page.getByText('An unknown error has occurred. Please contact support.').waitFor();
    assert.equal(await page.getByText(/Error code/).count(), 0, 'arbitrary text is not echoed');
  });

  test('a native client: the landing page opens the desktop app’s transfer address after a second', TEST_TIMEOUT, async () => {
    const page = await freshPage();
    // The browser asks the system to open foyer:// (nothing here handles it): the attempt is the request.
    const appOpened = new Promise<{ url: string; at: number }>((resolve) => {
      page.on('request', (request) => {
        if (request.url().startsWith('foyer:')) resolve({ url: request.url(), at: Date.now() });
      });
    });
    await page.goto(`${server.url}/sso-sign-in?native=true`);
    await startSso(page, `bea@${ACME}`);
    await passCorpId(page, 'bea', 'bea-password');
    await page.waitForURL((url) => url.pathname === '/sso-landing' && url.searchParams.get('native') === 'true', { waitUntil: 'commit' });
    const landedAt = Date.now();
    const token = new URL(page.url()).searchParams.get('transferToken') ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);

    const opened = await appOpened;
    assert.equal(opened.url, `foyer://sso-transfer?transferToken=${token}`);
    assert.ok(opened.at - landedAt >= 1000, `the app opens after the page's second (${opened.at - landedAt} ms)`);
    // The page stays, with a link for a browser that asked first or a person who said no.
    await page.getByRole('heading', { name: 'Signing in' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Open the app' }).getAttribute('href'), `foyer://sso-transfer?transferToken=${token}`);
    assert.equal(new URL(page.url()).pathname, '/sso-landing');
    await noAxeViolations(page, '/sso-landing (native success)');
    await screenshot(page, 'sso-landing-native');

    // The app exchanges the token for its own session, once.
    const xsrf = randomBytes(32).toString('base64url');
    const exchange = () =>
      fetch(`${server.url}/api/account/exchangeSSOTransferToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `XSRF-TOKEN=${xsrf}`, 'X-XSRF-TOKEN': xsrf },
        body: JSON.stringify({ token, deviceId: randomBytes(9).toString('base64url') }),
      });
    assert.equal((await exchange()).status, 200);
    const second = await exchange();
    assert.equal(second.status, 400);
    assert.deepEqual(await second.json(), { errorMessage: 'ssoTransferFailed' });

    // A spent token in a browser: the transfer screen's error, with the ways back.
    await page.goto(`${server.url}/ssol/${token}`);
    await page.getByText('There was an error signing in with SSO.').waitFor();
    await page.getByRole('link', { name: 'Back to sign in' }).waitFor();
    await noAxeViolations(page, '/ssol (spent token)');
    await screenshot(page, 'ssol-error');
  });
});
