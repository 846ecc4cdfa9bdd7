import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { Spinner } from '../../components/spinner';
import { fetchAnswer } from '../../lib/answers';
import { useT } from '../../lib/i18n';
import { withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { randomId } from '../../lib/storage';
import { writeSessionItem } from '../../lib/session-store';
import { keptQuery, socialFailure } from './social-auth-request';

/** 32 characters of [A-Za-z0-9]: about 190 bits, well past what a guess could reach. */
const STATE_LENGTH = 32;

/**
 * Spec §2 `/social-auth`: keeps the recognised query and a fresh state nonce for the return
 * (spec §4), asks the service for the consent address (`account/socialAuth`, which keeps the PKCE
 * verifier and the nonce server-side), and sends the browser there.
 */
export function SocialAuth() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const [attempt, setAttempt] = useState(0);
  const enabled = config.googleEnabled;

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    const { signal } = controller;
    const state = randomId(STATE_LENGTH);
    writeSessionItem('socialAuthNonce', state);
    writeSessionItem('socialAuthParams', keptQuery(params));
    void (async () => {
      const result = await fetchAnswer('socialAuth', { body: { state }, signal });
      if (signal.aborted) return;
      // Only an http(s) address is followed: the answer decides where the whole page goes.
      if (result.ok && /^https?:\/\//i.test(result.data.url)) {
        window.location.assign(result.data.url);
        return;
      }
      setFailure(result.ok ? 'error.unexpected' : socialFailure(result.code).key);
    })();
    return () => controller.abort();
  }, [enabled, params, attempt]);

  const back = withQuery(ROUTES.signIn, { from: params.get('from') });

  if (!enabled || failure !== null) {
    return (
      <CardLayout title={t('social.title')}>
        <Alert variant="error" focusOnShow>
          <p>{t(enabled ? (failure ?? 'error.unexpected') : 'social.unavailable')}</p>
        </Alert>
        <div className="stack">
          {enabled ? (
            <Button
              variant="strong"
              block
              onClick={() => {
                setFailure(null);
                setAttempt((count) => count + 1);
              }}
            >
              {t('common.retry')}
            </Button>
          ) : null}
          <Button variant={enabled ? 'flat' : 'strong'} block to={back}>
            {t('common.backToSignIn')}
          </Button>
        </div>
      </CardLayout>
    );
  }

  return (
    <CardLayout title={t('social.title')}>
      <div className="centred">
        <Spinner title={t('social.redirecting')} />
      </div>
    </CardLayout>
  );
}
