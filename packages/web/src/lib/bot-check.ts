/**
 * Spec §5: sign-up and forgot-password use an invisible bot check (Google reCAPTCHA v3) only
 * when the runtime config carries a site key; without one nothing is loaded and no token is
 * sent. The script is added only by the screens that use it, when they open, so sign-in never
 * loads it. The server's CSP must allow it (script-src www.google.com/recaptcha/ and
 * www.gstatic.com/recaptcha/, frame-src www.google.com/recaptcha/).
 */

interface ReCaptcha {
  ready(callback: () => void): void;
  execute(siteKey: string, options: { action: string }): Promise<string>;
}

declare global {
  interface Window {
    grecaptcha?: ReCaptcha;
  }
}

/** The actions the server may check the token's action against. */
export type BotCheckAction = 'signup' | 'forgot_password';

const SCRIPT_URL = 'https://www.google.com/recaptcha/api.js';
/** A blocked or stalled script must not leave the submit button spinning for ever. */
const BOT_CHECK_TIMEOUT_MS = 10_000;

let loading: Promise<ReCaptcha> | undefined;

function whenReady(api: ReCaptcha): Promise<ReCaptcha> {
  return new Promise((resolve) => api.ready(() => resolve(api)));
}

function injectScript(siteKey: string): Promise<ReCaptcha> {
  return new Promise<ReCaptcha>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `${SCRIPT_URL}?render=${encodeURIComponent(siteKey)}`;
    script.async = true;
    script.onload = () => {
      const api = window.grecaptcha;
      if (api === undefined) reject(new Error('reCAPTCHA did not start'));
      else resolve(whenReady(api));
    };
    script.onerror = () => reject(new Error('reCAPTCHA could not be loaded'));
    document.head.append(script);
  });
}

function reCaptcha(siteKey: string): Promise<ReCaptcha> {
  const present = window.grecaptcha;
  if (present !== undefined) return whenReady(present);
  // One script per page; after a failure the next attempt tries again.
  loading ??= injectScript(siteKey).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bot check timed out')), ms);
    void promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** Starts loading the script as the screen opens, so the submit need not wait for it. */
export function preloadBotCheck(siteKey: string | undefined): void {
  if (siteKey === undefined || siteKey === '') return;
  reCaptcha(siteKey).catch(() => {
    // Reported at submit time, when the token is asked for.
  });
}

/**
 * The token for one submit, or undefined without a site key. When the check cannot run (the
 * script is blocked or times out) the request goes without a token and the server answers
 * reCaptchaFail, whose text asks the visitor to try again.
 */
export async function botCheckToken(siteKey: string | undefined, action: BotCheckAction): Promise<string | undefined> {
  if (siteKey === undefined || siteKey === '') return undefined;
  try {
    return await withTimeout(
      reCaptcha(siteKey).then((api) => api.execute(siteKey, { action })),
      BOT_CHECK_TIMEOUT_MS,
    );
  } catch {
    return undefined;
  }
}
