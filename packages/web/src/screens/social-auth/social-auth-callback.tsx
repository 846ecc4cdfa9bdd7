import { ROUTES, isAppSchemeUrl } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { Spinner } from '../../components/spinner';
import { fetchAnswer } from '../../lib/answers';
import { useT } from '../../lib/i18n';
import { allowedTarget, redirectTarget, withQuery, withToken } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { readSessionItem, removeSessionItem } from '../../lib/session-store';
import { exchangeBody, socialFailure, type SocialFailure } from './social-auth-request';
import { clientParams } from '../../lib/client-params';

type CallbackState =
  | { status: 'exchanging' }
  | { status: 'failed'; failure: SocialFailure }
  | { status: 'cancelled' }
  /** A native app or browser extension signs itself in with the token (spec §3, §4). */
  | { status: 'transferred'; appLink?: string };

/** The app's own address with the one-time token, when `from` names one the allow-list accepts. */
function appLinkOf(from: string | undefined, transferToken: string): string | undefined {
  // Only into the app: a transfer token is a credential, and a web address on the allow-list
  // (the forum, the marketing site) is not where it belongs.
  if (from === undefined || !isAppSchemeUrl(from)) return undefined;
  return withToken(from, transferToken);
}

/**
 * Spec §2, §4 `/social-auth-callback`: the returned `state` must equal the stored nonce, or an
 * error page with a way back shows (a return this tab did not start, such as a forged link, is
 * never exchanged). A cancelled consent (`error=access_denied`) says so. Otherwise the code is
 * exchanged with the kept query (spec §7); the server sets the session cookie, and the browser
 * goes to the allowed `from` or the default home, or, for a native or extension client that
 * asked for a transfer token, 'Sign-in Successful' and the instruction to return to the app.
 */
export function SocialAuthCallback() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  // Read and forgotten once: a nonce serves one return only, so a reload cannot replay it.
  const [stored] = useState(() => {
    const value = { nonce: readSessionItem('socialAuthNonce'), kept: new URLSearchParams(readSessionItem('socialAuthParams') ?? '') };
    removeSessionItem('socialAuthNonce');
    removeSessionItem('socialAuthParams');
    return value;
  });
  const [state, setState] = useState<CallbackState>(() => {
    if (params.get('error') === 'access_denied') return { status: 'cancelled' };
    const returned = params.get('state');
    if (stored.nonce === null || returned !== stored.nonce) return { status: 'failed', failure: { key: 'social.stateMismatch' } };
    if (params.get('error') !== null || params.get('code') === null) return { status: 'failed', failure: { key: 'social.failed' } };
    return { status: 'exchanging' };
  });
  const from = stored.kept.get('from');
  const exchanging = state.status === 'exchanging';

  useEffect(() => {
    if (!exchanging) return;
    const code = params.get('code') ?? '';
    const nonce = stored.nonce ?? '';
    void (async () => {
      // Not aborted on unmount: the code is single use, and StrictMode's second run must not
      // send it again (the guard below), so the one request is left to finish.
      const result = await fetchAnswer('googleExchange', { body: exchangeBody(code, nonce, stored.kept) });
      if (!result.ok) {
        setState({ status: 'failed', failure: socialFailure(result.code, result.body) });
        return;
      }
      const { transferToken } = result.data;
      if (transferToken !== undefined) {
        const appLink = appLinkOf(allowedTarget(from, config), transferToken);
        setState(appLink === undefined ? { status: 'transferred' } : { status: 'transferred', appLink });
        return;
      }
      // The session cookie is set (HttpOnly); leave with the spinner still on.
      window.location.assign(redirectTarget(from, config));
    })();
    // Once per page: the effect's inputs never change while this screen is open.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the exchange must run exactly once
  }, [exchanging]);

  const back = withQuery(ROUTES.signIn, { from });

  if (state.status === 'exchanging') {
    return (
      <CardLayout title={t('social.title')}>
        <div className="centred">
          <Spinner title={t('social.signingIn')} />
        </div>
      </CardLayout>
    );
  }

  if (state.status === 'transferred') {
    return (
      <CardLayout title={t('social.successTitle')}>
        <Alert variant="success">
          <p>{t('social.nativeTransfer')}</p>
        </Alert>
        {state.appLink === undefined ? null : (
          <Button variant="strong" block href={state.appLink} target="_self">
            {t('social.openApp')}
          </Button>
        )}
      </CardLayout>
    );
  }

  const failure: SocialFailure = state.status === 'cancelled' ? { key: 'social.cancelled' } : state.failure;
  return (
    <CardLayout title={t('social.title')}>
      <Alert variant="error" focusOnShow>
        <p>{t(failure.key)}</p>
        {failure.ssoLink === true ? (
          <p>
            <a href={withQuery(ROUTES.ssoSignIn, { from, email: failure.email, ...clientParams(stored.kept) })}>{t('signIn.failure.ssoLink')}</a>
          </p>
        ) : null}
      </Alert>
      <Button variant="strong" block to={back}>
        {t('common.backToSignIn')}
      </Button>
    </CardLayout>
  );
}
