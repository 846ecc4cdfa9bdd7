import { useEffect } from 'react';
import { useRuntimeConfig } from '../lib/runtime-config';

let requested = false;

/**
 * Decision 0025: loads the configured third-party scripts (the tag manager, the support widget)
 * once the screen that renders this is on screen: after the window's load event, the next frame
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

/** Runs `run` after the load event, a painted frame, and then when the page is idle. */
export function afterFirstPaint(run: () => void): void {
  const idle = () =>
    requestAnimationFrame(() => {
      if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 2000 });
      else setTimeout(run, 0);
    });
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

/** For tests: as if the page had just been loaded. */
export function resetThirdPartyScriptsForTests(): void {
  requested = false;
}
