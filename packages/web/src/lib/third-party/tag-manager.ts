import { LIMITS, type RuntimeConfig } from '@foyer/contract/core';
import { ACCOUNT_VERIFIED_EVENT, tagManagerScriptUrl } from '@foyer/contract/third-party';

declare global {
  interface Window {
    dataLayer?: unknown[];
  }
}

interface Container {
  /** Settles when the container's script failed to load (blocked, offline). */
  failed: Promise<void>;
  hasFailed: boolean;
}

let container: Container | undefined;

/**
 * Google Tag Manager's standard loader (decision 0025): the `dataLayer` with its `gtm.start`
 * entry, then the container's `gtm.js`, asynchronously. It runs as this page's own script, not as
 * an inline snippet, so the policy needs neither a nonce nor 'unsafe-inline'. Once per page.
 */
export function loadTagManager(id: string): void {
  if (container !== undefined) return;
  const dataLayer = (window.dataLayer ??= []);
  dataLayer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
  let fail: () => void = () => undefined;
  const loading: Container = { failed: new Promise<void>((resolve) => (fail = resolve)), hasFailed: false };
  const script = document.createElement('script');
  script.async = true;
  script.src = tagManagerScriptUrl(id);
  script.addEventListener('error', () => {
    loading.hasFailed = true;
    fail();
  });
  container = loading;
  document.head.append(script);
}

/**
 * Spec §4, §9: account-verification tracking. The `accountVerified` event (its name and nothing
 * else) goes to the container with Google's `eventCallback` and `eventTimeout`; the promise settles
 * when the container calls back, when its script fails to load, or after 2000 ms, whichever comes
 * first. The page then goes on; a container that never answers holds it up 2000 ms at most.
 * Without GTM_ID, or when the container could not load, it settles at once.
 *
 * On the verification page the container is loaded here, after the link has been spent: until
 * then the page's address holds a live token, which the container's tags would read and send on
 * (decision 0025).
 */
export function trackAccountVerified(config: Pick<RuntimeConfig, 'tagManagerId'>): Promise<void> {
  if (config.tagManagerId === undefined) return Promise.resolve();
  loadTagManager(config.tagManagerId);
  const loading = container;
  if (loading === undefined || loading.hasFailed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, LIMITS.tagManagerTimeoutMs);
    function done() {
      clearTimeout(timer);
      resolve();
    }
    void loading.failed.then(done);
    (window.dataLayer ??= []).push({ event: ACCOUNT_VERIFIED_EVENT, eventCallback: done, eventTimeout: LIMITS.tagManagerTimeoutMs });
  });
}

/** For tests: as if the page had just been loaded. */
export function resetTagManagerForTests(): void {
  container = undefined;
  delete window.dataLayer;
}
