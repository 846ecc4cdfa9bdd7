import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadTagManager, resetTagManagerForTests, trackAccountVerified } from './tag-manager';

const ID = 'GTM-AB12CD3';

/** The container's script element, as the page added it. */
function containerScript(): HTMLScriptElement | null {
  return document.head.querySelector<HTMLScriptElement>('script[src^="https://www.googletagmanager.com/"]');
}

interface TrackedEvent {
  event: string;
  eventCallback: (containerId: string) => void;
  eventTimeout: number;
}

function verificationEvent(): TrackedEvent {
  const found = (window.dataLayer ?? []).find((entry) => (entry as { event?: string }).event === 'accountVerified');
  if (found === undefined) throw new Error('no accountVerified event in the dataLayer');
  return found as TrackedEvent;
}

/** Starts the tracking and reports whether it has settled, after the microtasks of each step. */
function startTracking(config: { tagManagerId?: string }) {
  let settled = false;
  void trackAccountVerified(config).then(() => (settled = true));
  return {
    async settled() {
      await vi.advanceTimersByTimeAsync(0);
      return settled;
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  containerScript()?.remove();
  resetTagManagerForTests();
  vi.useRealTimers();
});

describe('the tag manager loader (decision 0025)', () => {
  it('is Google’s standard loader: the dataLayer’s gtm.start, then gtm.js of the container, async', () => {
    vi.setSystemTime(1_700_000_000_000);
    loadTagManager(ID);
    expect(window.dataLayer).toEqual([{ 'gtm.start': 1_700_000_000_000, event: 'gtm.js' }]);
    const script = containerScript();
    expect(script?.src).toBe('https://www.googletagmanager.com/gtm.js?id=GTM-AB12CD3');
    expect(script?.async).toBe(true);
    // Once per page: a second call adds nothing.
    loadTagManager(ID);
    expect(document.head.querySelectorAll('script[src*="googletagmanager"]')).toHaveLength(1);
    expect(window.dataLayer).toHaveLength(1);
  });
});

describe('account-verification tracking (spec §4, §9)', () => {
  it('goes on at once without GTM_ID, loading and sending nothing', async () => {
    const tracking = startTracking({});
    expect(await tracking.settled()).toBe(true);
    expect(containerScript()).toBeNull();
    expect(window.dataLayer).toBeUndefined();
  });

  it('goes on as soon as the container calls back', async () => {
    loadTagManager(ID);
    containerScript()?.dispatchEvent(new Event('load'));
    const tracking = startTracking({ tagManagerId: ID });
    await vi.advanceTimersByTimeAsync(600);
    expect(await tracking.settled()).toBe(false);
    verificationEvent().eventCallback(ID);
    expect(await tracking.settled()).toBe(true);
  });

  it('waits 2000 ms at most for a loaded container that never calls back', async () => {
    loadTagManager(ID);
    containerScript()?.dispatchEvent(new Event('load'));
    const tracking = startTracking({ tagManagerId: ID });
    await vi.advanceTimersByTimeAsync(1999);
    expect(await tracking.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await tracking.settled()).toBe(true);
    // A late callback changes nothing.
    verificationEvent().eventCallback(ID);
  });

  it('sends the event’s name and Google’s callback and timeout, nothing about the person', async () => {
    const tracking = startTracking({ tagManagerId: ID });
    const event = verificationEvent();
    expect(Object.keys(event).sort()).toEqual(['event', 'eventCallback', 'eventTimeout']);
    expect(event.eventTimeout).toBe(2000);
    expect(typeof event.eventCallback).toBe('function');
    event.eventCallback(ID);
    expect(await tracking.settled()).toBe(true);
  });

  it('loads the container when it was not yet (the verification page, once its link is spent)', async () => {
    expect(containerScript()).toBeNull();
    const tracking = startTracking({ tagManagerId: ID });
    expect(containerScript()?.src).toBe('https://www.googletagmanager.com/gtm.js?id=GTM-AB12CD3');
    expect(window.dataLayer?.[0]).toMatchObject({ event: 'gtm.js' });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await tracking.settled()).toBe(true);
  });

  it('goes on at once when the container cannot load (blocked, offline), and at once afterwards', async () => {
    const tracking = startTracking({ tagManagerId: ID });
    await vi.advanceTimersByTimeAsync(100);
    expect(await tracking.settled()).toBe(false);
    containerScript()?.dispatchEvent(new Event('error'));
    expect(await tracking.settled()).toBe(true);
    expect(await startTracking({ tagManagerId: ID }).settled()).toBe(true);
  });
});
