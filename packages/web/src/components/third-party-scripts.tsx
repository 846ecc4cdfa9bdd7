import { useEffect } from 'react';
import { useRuntimeConfig } from '../lib/runtime-config';

let requested = false;

/**
 * Decision 0025: loads the configured third-party scripts (the tag manager, the support widget)
 * once the screen that renders this is on screen: after the window's load event, the first paint
 * and an idle moment, so never before the form is usable. Only screens whose address holds no
 * secret render it (sign-in, sign-up, forgot password, SSO sign-in): these scripts read the page's
 * address. Without configuration nothing is fetched, not even the loader's own chunk, which stays
 * out of the sign-in page's first load.
 */
export function ThirdPartyScripts() {
  const config = useRuntimeConfig();
  useEffect(() => {
    if (requested || (config.tagManagerId === undefined && config.supportWidget === undefined)) return;
    requested = true;
    afterFirstPaint(() => {
      import('../lib/third-party/load').then(
        (loader) => loader.loadThirdParties(config),
        // Background scripts: a chunk that failed to arrive leaves the screen as it is.
        () => undefined,
      );
    });
  }, [config]);
  return null;
}

/**
 * Runs `run` after the load event, the first contentful paint, and then when the page is idle.
 * A frame callback runs before its frame is painted, so the paint is taken from the browser's own
 * `first-contentful-paint` entry where it reports one; a page that never paints it (a background
 * tab) goes on after `paintWaitMs`, and a browser without paint timing after two frames.
 */
export function afterFirstPaint(run: () => void, paintWaitMs = 5000): void {
  const idle = () => {
    if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 2000 });
    else setTimeout(run, 0);
  };
  const painted = () => whenPainted(idle, paintWaitMs);
  if (document.readyState === 'complete') painted();
  else window.addEventListener('load', painted, { once: true });
}

function whenPainted(then: () => void, waitMs: number): void {
  if (!paintTimingSupported()) {
    requestAnimationFrame(() => requestAnimationFrame(then));
    return;
  }
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearTimeout(timer);
    then();
  };
  const observer = new PerformanceObserver((entries) => {
    if (entries.getEntriesByName('first-contentful-paint').length > 0) finish();
  });
  const timer = setTimeout(finish, waitMs);
  // `buffered` replays an entry the page reported before this observer existed.
  observer.observe({ type: 'paint', buffered: true });
}

function paintTimingSupported(): boolean {
  return typeof PerformanceObserver === 'function' && (PerformanceObserver.supportedEntryTypes ?? []).includes('paint');
}

/** For tests: as if the page had just been loaded. */
export function resetThirdPartyScriptsForTests(): void {
  requested = false;
}
