import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { axeViolations, launchBrowser, newContext, type RunningServer, screenshot, startServer } from '../src/harness.ts';
import { linkTo, MailCapture } from '../src/mailbox.ts';

/**
 * Decision 0025: the tag manager and the support widget in Chromium. Nothing here reaches the
 * internet: the browser's requests to Google Tag Manager and to the widget's hosts are answered by
 * stand-ins (page routes) that behave as the real scripts do where it matters: the container runs
 * the dataLayer's events and calls `eventCallback` (or, playing a container that never answers,
 * does not), and the widget reads its settings and calls its region's API.
 */

const GTM_ID = 'GTM-FOYER01';
const APP_ID = 'foyer123';
const PASSWORD = 'plum orchard lantern 42';

/** What the stand-in container does with an event that has a callback. */
let containerMode: 'answer' | 'silent' = 'answer';
const ANSWER_AFTER_MS = 700;

const STAND_IN_CONTAINER = (mode: 'answer' | 'silent') => `(() => {
  const layer = (window.dataLayer = window.dataLayer || []);
  const seen = [];
  const handle = (entry) => {
    seen.push(JSON.stringify(entry));
    // What a container's tags do: send what they were given home (functions do not travel).
    navigator.sendBeacon('https://www.googletagmanager.com/stand-in/collect', JSON.stringify({ entry, page: location.pathname }));
    if (${JSON.stringify(mode)} === 'answer' && typeof entry.eventCallback === 'function') {
      setTimeout(() => entry.eventCallback(${JSON.stringify(GTM_ID)}), ${ANSWER_AFTER_MS});
    }
  };
  layer.forEach(handle);
  const push = layer.push.bind(layer);
  layer.push = (...entries) => {
    entries.forEach(handle);
    return push(...entries);
  };
})();`;

const STAND_IN_WIDGET = `(() => {
  const settings = window.intercomSettings;
  window.Intercom = () => undefined;
  void fetch(settings.api_base + '/messenger/web/ping', { method: 'POST', body: JSON.stringify(settings) });
  const launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.setAttribute('aria-label', 'Open the support messenger');
  Object.assign(launcher.style, {
    position: 'fixed', right: '20px', bottom: '20px', width: '56px', height: '56px', borderRadius: '50%',
    border: 'none', background: '#1f4fd1', boxShadow: '0 4px 12px rgba(0,0,0,0.25)', cursor: 'pointer',
  });
  document.body.append(launcher);
})();`;

interface ThirdPartyRequest {
  url: string;
  method: string;
  body: string;
  at: number;
}

/** Answers every request that leaves localhost with a stand-in, and records it. */
async function routeThirdParties(context: BrowserContext): Promise<ThirdPartyRequest[]> {
  const seen: ThirdPartyRequest[] = [];
  await context.route(
    (url) => url.hostname !== 'localhost' && url.hostname !== '127.0.0.1',
    async (route: Route) => {
      const request = route.request();
      const url = new URL(request.url());
      seen.push({ url: request.url(), method: request.method(), body: request.postData() ?? '', at: Date.now() });
      if (url.origin === 'https://www.googletagmanager.com' && url.pathname === '/gtm.js') {
        await route.fulfill({ contentType: 'text/javascript', body: STAND_IN_CONTAINER(containerMode) });
      } else if (url.origin === 'https://widget.intercom.io' && url.pathname === `/widget/${APP_ID}`) {
        await route.fulfill({ contentType: 'text/javascript', body: STAND_IN_WIDGET });
      } else if (url.hostname.endsWith('googletagmanager.com') || url.hostname.endsWith('intercom.io')) {
        await route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{}' });
      } else {
        await route.abort();
      }
    },
  );
  return seen;
}

/** Every Content-Security-Policy report the browser printed, and every violation event. */
function watchPolicy(page: Page): string[] {
  const reports: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) reports.push(message.text());
  });
  return reports;
}

/** Records, in the page's own clock, when the sign-in form became usable and when each script was added. */
const TIMELINE = `(() => {
  window.__timeline = { formUsable: undefined, scripts: {}, violations: [] };
  document.addEventListener('securitypolicyviolation', (event) => window.__timeline.violations.push(event.violatedDirective + ' ' + event.blockedURI));
  new MutationObserver(() => {
    const email = document.querySelector('input[type=email]');
    if (email && !email.disabled && window.__timeline.formUsable === undefined) window.__timeline.formUsable = performance.now();
    for (const script of document.querySelectorAll('script[src^="https:"]')) {
      if (!(script.src in window.__timeline.scripts)) window.__timeline.scripts[script.src] = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
})();`;

interface Timeline {
  formUsable: number | undefined;
  firstContentfulPaint: number | undefined;
  scripts: Record<string, number>;
  violations: string[];
}

function readTimeline(page: Page): Promise<Timeline> {
  return page.evaluate(() => {
    const timeline = (window as unknown as { __timeline: Omit<Timeline, 'firstContentfulPaint'> }).__timeline;
    return { ...timeline, firstContentfulPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime };
  });
}

let configured: RunningServer;
let plain: RunningServer;
let browser: Browser;
const mail = new MailCapture();

before(async () => {
  await mail.start();
  [configured, plain, browser] = await Promise.all([
    startServer({ SMTP_URL: mail.url, MAIL_POLL_MS: '200', GTM_ID, SUPPORT_WIDGET_APP_ID: APP_ID, SUPPORT_WIDGET_REGION: 'eu' }),
    // The same service without either setting: nothing third-party may load or be allowed.
    startServer(),
    launchBrowser(),
  ]);
});

after(async () => {
  await browser?.close();
  await Promise.all([configured?.stop(), plain?.stop()]);
  await mail.stop();
});

/** Signs up through the form and returns the verification link from the mail. */
async function verificationLink(page: Page, email: string): Promise<string> {
  await page.goto(`${configured.url}/sign-up`);
  await page.getByLabel('First name').fill('Vera');
  await page.getByLabel('Last name').fill('Lind');
  await page.getByLabel('Work email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Get Started' }).click();
  await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();
  return linkTo(await mail.waitFor(email, /Foyer/), '/verify-email/');
}

/**
 * Opens a verification link and measures, on the test's clock, how long the page held on after
 * the service had spent the link before it went to the home page.
 */
async function verify(link: string): Promise<{ heldMs: number; requests: ThirdPartyRequest[]; spentAt: number; reports: string[] }> {
  const context = await newContext(browser);
  const requests = await routeThirdParties(context);
  const page = await context.newPage();
  const reports = watchPolicy(page);
  const spent = page.waitForResponse((response) => response.url().endsWith('/api/account/setupAccount') && response.request().method() === 'POST');
  const home = page.waitForRequest((request) => request.url() === `${configured.url}/home`, { timeout: 10_000 });
  await page.goto(link);
  assert.equal((await spent).status(), 200);
  const spentAt = Date.now();
  await home;
  const heldMs = Date.now() - spentAt;
  await page.waitForURL(`${configured.url}/home`);
  await context.close();
  return { heldMs, requests, spentAt, reports };
}

describe('the tag manager and the support widget in Chromium (decision 0025)', () => {
  test('sign-in: nothing third-party until the form is usable, then the container and the eu widget', async () => {
    const context = await newContext(browser);
    const requests = await routeThirdParties(context);
    await context.addInitScript(TIMELINE);
    const page = await context.newPage();
    const reports = watchPolicy(page);
    const response = await page.goto(`${configured.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Open the support messenger' }).waitFor();

    const timeline = await readTimeline(page);
    const gtm = `https://www.googletagmanager.com/gtm.js?id=${GTM_ID}`;
    const widget = `https://widget.intercom.io/widget/${APP_ID}`;
    assert.deepEqual(Object.keys(timeline.scripts).sort(), [widget, gtm]);
    assert.ok(timeline.formUsable !== undefined && timeline.firstContentfulPaint !== undefined, 'the form was usable and painted');
    for (const [src, addedAt] of Object.entries(timeline.scripts)) {
      assert.ok(addedAt > timeline.formUsable, `${src} was added after the form was usable`);
      assert.ok(addedAt > timeline.firstContentfulPaint, `${src} was added after the first paint`);
    }
    // What left the page: the two scripts, the container's hit and the widget's eu API, nothing else.
    const origins = [...new Set(requests.map((request) => new URL(request.url).origin))].sort();
    assert.deepEqual(origins, ['https://api-iam.eu.intercom.io', 'https://widget.intercom.io', 'https://www.googletagmanager.com']);
    const ping = requests.find((request) => request.url === 'https://api-iam.eu.intercom.io/messenger/web/ping');
    assert.ok(ping, 'the widget reached its region');
    // The widget is told its workspace, region and the page's language, nothing about the visitor.
    assert.deepEqual(JSON.parse(ping.body), { app_id: APP_ID, api_base: 'https://api-iam.eu.intercom.io', language_override: 'en' });

    const policy = response?.headers()['content-security-policy'] ?? '';
    assert.match(policy, /script-src 'self' https:\/\/www\.googletagmanager\.com https:\/\/widget\.intercom\.io https:\/\/js\.intercomcdn\.com;/);
    assert.doesNotMatch(policy, /api-iam\.intercom\.io|\.au\./, 'no other region is allowed');
    assert.deepEqual(timeline.violations, []);
    assert.deepEqual(reports, [], 'no Content-Security-Policy reports in the console');
    assert.deepEqual(await axeViolations(page), [], 'axe on sign-in with the widget');
    await screenshot(page, 'sign-in-with-support-widget');
    await context.close();
  });

  test('account verification waits for the container’s callback, which comes only after the link is spent', async () => {
    containerMode = 'answer';
    const setup = await (await newContext(browser)).newPage();
    const link = await verificationLink(setup, 'vera@example.com');
    await setup.context().close();

    const { heldMs, requests, spentAt, reports } = await verify(link);
    const container = requests.find((request) => request.url.includes('/gtm.js'));
    assert.ok(container, 'the container was loaded on the verification page');
    assert.ok(container.at >= spentAt - 5, 'the container was requested only once the link was spent');
    assert.ok(!requests.some((request) => request.url.includes('intercom')), 'no widget on a page whose address holds a token');
    assert.ok(heldMs >= ANSWER_AFTER_MS - 50 && heldMs < 1800, `went on when the container called back (${heldMs} ms)`);
    // What the container was given: the event's name and Google's timeout, nothing about the person.
    const hits = requests.filter((request) => request.url.endsWith('/stand-in/collect')).map((request) => JSON.parse(request.body) as { entry: object });
    assert.deepEqual(
      hits.map((hit) => hit.entry).filter((entry) => 'eventTimeout' in entry),
      [{ event: 'accountVerified', eventTimeout: 2000 }],
    );
    assert.ok(!requests.some((request) => request.body.includes('vera@example.com')), 'the email went to no third party');
    assert.deepEqual(reports, []);
  });

  test('account verification goes on after 2000 ms when the container never answers', async () => {
    containerMode = 'silent';
    const setup = await (await newContext(browser)).newPage();
    const link = await verificationLink(setup, 'walt@example.com');
    await setup.context().close();

    const { heldMs, requests, reports } = await verify(link);
    assert.ok(requests.some((request) => request.url.includes('/gtm.js')));
    assert.ok(heldMs >= 1950 && heldMs < 3500, `held 2000 ms, not longer (${heldMs} ms)`);
    assert.deepEqual(reports, []);
  });

  test('without configuration nothing third-party is requested, and the policy allows none', async () => {
    const context = await newContext(browser);
    const requests = await routeThirdParties(context);
    const page = await context.newPage();
    const reports = watchPolicy(page);
    const ownRequests: string[] = [];
    page.on('request', (request) => ownRequests.push(request.url()));
    const response = await page.goto(`${plain.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).waitFor();
    // Past the load event, a frame and an idle moment.
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(500);
    assert.deepEqual(requests, []);
    assert.ok(!ownRequests.some((url) => /\/assets\/(load|tag-manager|support-widget)-/.test(url)), 'not even the loader’s chunk is fetched');
    assert.deepEqual(await page.evaluate(() => ['dataLayer', 'intercomSettings'].filter((name) => name in window)), []);
    const policy = response?.headers()['content-security-policy'] ?? '';
    assert.doesNotMatch(policy, /googletagmanager|intercom|https:|wss:|unsafe-inline/);
    assert.deepEqual(reports, []);
    await context.close();
  });
});
