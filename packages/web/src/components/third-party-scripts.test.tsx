import de from '@foyer/contract/lang/de.json';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetTagManagerForTests } from '../lib/third-party/tag-manager';
import { deferred, json, renderApp, stubFetch, stubLocation, TEST_CONFIG } from '../test/harness';
import { afterFirstPaint, resetThirdPartyScriptsForTests } from './third-party-scripts';

const CONFIGURED = { ...TEST_CONFIG, tagManagerId: 'GTM-AB12CD3', supportWidget: { appId: 'ab12cd34', region: 'eu' as const } };
const TOKEN = 'verify-token-0123456789abcdef';

function thirdPartyScripts(): string[] {
  return [...document.querySelectorAll<HTMLScriptElement>('script[src]')].map((script) => script.src).filter((src) => !src.startsWith(location.origin));
}

/** Long enough for the load event, a frame and an idle moment to have passed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

afterEach(() => {
  for (const script of document.querySelectorAll('script[src]')) script.remove();
  resetThirdPartyScriptsForTests();
  resetTagManagerForTests();
  delete window.intercomSettings;
  delete window.Intercom;
});

describe('third-party scripts on the sign-in page (decision 0025)', () => {
  it('loads nothing without configuration', async () => {
    renderApp('/sign-in');
    await screen.findByLabelText('Email');
    await settle();
    expect(thirdPartyScripts()).toEqual([]);
    expect(window.dataLayer).toBeUndefined();
    expect(window.intercomSettings).toBeUndefined();
  });

  it('loads the tag manager and the region’s widget once the form is on screen, telling the widget nothing about the visitor', async () => {
    // Whenever a script is added, the form must already be there and usable.
    const formAtEachScript: boolean[] = [];
    const observer = new MutationObserver(() => {
      const email = screen.queryByLabelText(/^(Email|E-Mail)$/);
      while (formAtEachScript.length < thirdPartyScripts().length) formAtEachScript.push(email !== null && !(email as HTMLInputElement).disabled);
    });
    observer.observe(document.head, { childList: true });
    renderApp('/sign-in', { config: CONFIGURED, languages: ['de'], inline: { locale: 'de', messages: de } });
    await screen.findByLabelText('E-Mail');
    await waitFor(() => expect(thirdPartyScripts()).toHaveLength(2));
    observer.disconnect();
    expect(formAtEachScript).toEqual([true, true]);
    expect(thirdPartyScripts()).toEqual(['https://www.googletagmanager.com/gtm.js?id=GTM-AB12CD3', 'https://widget.intercom.io/widget/ab12cd34']);
    expect(window.intercomSettings).toEqual({ app_id: 'ab12cd34', api_base: 'https://api-iam.eu.intercom.io', language_override: 'de' });
    expect(window.dataLayer).toEqual([{ 'gtm.start': expect.any(Number), event: 'gtm.js' }]);
  });

  it('loads the widget alone when only the widget is configured', async () => {
    renderApp('/sign-in', { config: { ...TEST_CONFIG, supportWidget: { appId: 'ab12cd34', region: 'us' } } });
    await waitFor(() => expect(thirdPartyScripts()).toEqual(['https://widget.intercom.io/widget/ab12cd34']));
    expect(window.intercomSettings?.api_base).toBe('https://api-iam.intercom.io');
    expect(window.dataLayer).toBeUndefined();
  });
});

describe('afterFirstPaint', () => {
  /** A browser's paint timing: the page reports its first contentful paint when `paint()` is called. */
  function stubPaintTiming() {
    const observers: Array<{ callback: PerformanceObserverCallback; connected: boolean }> = [];
    class FakeObserver {
      static supportedEntryTypes = ['paint'];
      private readonly entry: { callback: PerformanceObserverCallback; connected: boolean };
      constructor(callback: PerformanceObserverCallback) {
        this.entry = { callback, connected: false };
        observers.push(this.entry);
      }
      observe() {
        this.entry.connected = true;
      }
      disconnect() {
        this.entry.connected = false;
      }
    }
    vi.stubGlobal('PerformanceObserver', FakeObserver);
    return {
      paint() {
        const list = { getEntriesByName: (name: string) => (name === 'first-contentful-paint' ? [{ name }] : []) };
        for (const observer of observers.filter((each) => each.connected))
          observer.callback(list as unknown as PerformanceObserverEntryList, observer as unknown as PerformanceObserver);
      },
    };
  }

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('waits for the first contentful paint, not merely a frame, before it runs', async () => {
    const browser = stubPaintTiming();
    const run = vi.fn();
    afterFirstPaint(run);
    await settle();
    expect(run).not.toHaveBeenCalled();
    browser.paint();
    await waitFor(() => expect(run).toHaveBeenCalledTimes(1));
    browser.paint();
    await settle();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('goes on without a paint after its wait, as a background tab never reports one', async () => {
    stubPaintTiming();
    const run = vi.fn();
    afterFirstPaint(run, 50);
    await waitFor(() => expect(run).toHaveBeenCalledTimes(1));
  });
});

describe('account verification on /verify-email (spec §4)', () => {
  function stubVerification() {
    const answer = deferred<Response>();
    stubFetch({
      [`GET /api/account/setupAccount/fields/${TOKEN}`]: () => json(200, { email: 'ann@example.com', fields: [] }),
      'POST /api/account/setupAccount': () => answer.promise,
    });
    return answer;
  }

  it('loads the tag manager only once the link is spent, and goes on when the container calls back', async () => {
    const answer = stubVerification();
    const { assign } = stubLocation();
    renderApp(`/verify-email/${TOKEN}`, { config: CONFIGURED });
    await screen.findByText('Finishing your account setup…', {}, { timeout: 10_000 });
    await settle();
    // The address still holds a live token: no third party may read it.
    expect(thirdPartyScripts()).toEqual([]);
    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(thirdPartyScripts()).toEqual(['https://www.googletagmanager.com/gtm.js?id=GTM-AB12CD3']));
    await settle();
    expect(assign).not.toHaveBeenCalled();
    const event = window.dataLayer?.find((entry) => (entry as { event?: string }).event === 'accountVerified') as { eventCallback: () => void };
    event.eventCallback();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
    // The widget never loads on a page whose address holds a token.
    expect(window.intercomSettings).toBeUndefined();
  });

  it('goes on at once without GTM_ID', async () => {
    const answer = stubVerification();
    const { assign } = stubLocation();
    renderApp(`/verify-email/${TOKEN}`);
    await screen.findByText('Finishing your account setup…', {}, { timeout: 10_000 });
    answer.resolve(json(200, { otter: 'session' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'));
    expect(thirdPartyScripts()).toEqual([]);
    expect(window.dataLayer).toBeUndefined();
  });

  it('does not track an invitation’s setup link', async () => {
    stubFetch({
      [`GET /api/account/setupAccount/fields/${TOKEN}`]: () => json(200, { email: 'ann@example.com', fields: [] }),
      'POST /api/account/setupAccount': () => json(200, { otter: 'session' }),
    });
    const { assign } = stubLocation();
    renderApp(`/setup-account/${TOKEN}`, { config: CONFIGURED });
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/home'), { timeout: 10_000 });
    expect(thirdPartyScripts()).toEqual([]);
    expect(window.dataLayer).toBeUndefined();
  });
});
