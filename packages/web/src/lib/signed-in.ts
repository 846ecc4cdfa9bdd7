import { ROUTES, type RuntimeConfig } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { call, send } from './api';
import { redirectTarget } from './redirect';

export type SessionCheck = 'checking' | 'signedOut';

/**
 * How long a screen waits for the session check before showing its form anyway: a slow or
 * unreachable service must not keep someone from signing in.
 */
export const SESSION_CHECK_PATIENCE_MS = 3000;

/**
 * The email of the account this browser is signed in to, or undefined (signed out, or no answer
 * within the patience: a slow service must not hold up what the screen does next).
 */
export async function signedInEmail(signal?: AbortSignal): Promise<string | undefined> {
  const controller = new AbortController();
  const forward = () => controller.abort();
  signal?.addEventListener('abort', forward, { once: true });
  const patience = window.setTimeout(() => controller.abort(), SESSION_CHECK_PATIENCE_MS);
  try {
    const result = await send('session', { signal: controller.signal });
    if (!result.ok || typeof result.data !== 'object' || result.data === null) return undefined;
    const { user } = result.data as { user?: { email?: unknown } };
    return typeof user?.email === 'string' ? user.email : undefined;
  } finally {
    window.clearTimeout(patience);
    signal?.removeEventListener('abort', forward);
  }
}

/** Where a signed-in visitor goes from sign-in or sign-up: never back to one of them (a loop). */
export function signedInTarget(from: string | null, config: RuntimeConfig): string {
  const target = redirectTarget(from, config);
  const { pathname, origin } = new URL(target, window.location.href);
  const entry: string[] = [ROUTES.signIn, ROUTES.signUp, ROUTES.signUpOld];
  return origin === window.location.origin && entry.includes(pathname.replace(/\/+$/, '')) ? config.defaultHome : target;
}

/**
 * Sign-in and sign-up are for people without a session (decision 0020): a signed-in visitor who
 * opens one goes on to `from` (when the allow-list accepts it) or the default home, replacing the
 * entry in the history. The session cookie is HttpOnly, so the page asks the service; until it
 * answers the screen shows its spinner, not the form, so a signed-in visitor never sees a form
 * flash by. Any answer but a session, or no answer within the patience, shows the form.
 *
 * A page brought back from the back-forward cache asks again: the visitor may have signed in
 * since, in this tab or another.
 */
export function useSignedInBounce(from: string | null, config: RuntimeConfig, enabled = true): SessionCheck {
  const [check, setCheck] = useState<SessionCheck>(enabled ? 'checking' : 'signedOut');
  const [round, setRound] = useState(0);

  useEffect(() => {
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted || !enabled) return;
      setCheck('checking');
      setRound((count) => count + 1);
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, [enabled]);

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    const patience = window.setTimeout(() => {
      controller.abort();
      setCheck('signedOut');
    }, SESSION_CHECK_PATIENCE_MS);
    void call('session', { signal: controller.signal }).then((result) => {
      if (controller.signal.aborted) return;
      window.clearTimeout(patience);
      // Signed in: the spinner stays until the browser has left.
      if (result.ok) window.location.replace(signedInTarget(from, config));
      else setCheck('signedOut');
    });
    return () => {
      window.clearTimeout(patience);
      controller.abort();
    };
  }, [enabled, from, config, round]);

  return enabled ? check : 'signedOut';
}
