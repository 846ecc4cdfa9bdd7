import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { Spinner } from '../../components/spinner';
import { call } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { readSessionItem, removeSessionItem } from '../../lib/session-store';
import { signedInTarget } from '../../lib/signed-in';
import { deviceId } from '../../lib/storage';
import { ssoTransferFailure } from './sso-request';

/**
 * Spec §2, §7 `/ssol/:transferToken`: the one-time token from the SSO landing page becomes this
 * browser's session (`account/exchangeSSOTransferToken`; the service sets the HttpOnly cookie),
 * and the browser goes to the `from` that SSO sign-in kept in the tab, or the default home. A
 * spent, expired or unknown token: 'There was an error signing in with SSO.' (spec §8).
 */
export function SsoTransfer() {
  const t = useT();
  const config = useRuntimeConfig();
  const { transferToken = '' } = useParams();
  const [failure, setFailure] = useState<MessageKey | null>(null);
  // The token is single use: StrictMode's second run of the effect must not send it again.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void (async () => {
      // Not aborted on unmount: the one request is left to finish (see `sent`).
      const result = await call('exchangeSSOTransferToken', { body: { token: transferToken, deviceId: deviceId() } });
      if (!result.ok) {
        setFailure(ssoTransferFailure(result.code));
        return;
      }
      const from = readSessionItem('ssoFrom');
      removeSessionItem('ssoFrom');
      // replace: Back must not land on a spent token's address.
      window.location.replace(signedInTarget(from, config));
    })();
  }, [transferToken, config]);

  if (failure === null) {
    return (
      <CardLayout title={t('ssoTransfer.title')}>
        <div className="centred">
          <Spinner title={t('ssoTransfer.signingIn')} />
        </div>
      </CardLayout>
    );
  }

  return (
    <CardLayout title={t('ssoTransfer.title')}>
      <Alert variant="error" focusOnShow>
        <ErrorText messageKey={failure} />
      </Alert>
      <div className="stack">
        <Button variant="strong" block to={ROUTES.ssoSignIn}>
          {t('signIn.withSso')}
        </Button>
        <Button variant="flat" block to={ROUTES.signIn}>
          {t('common.backToSignIn')}
        </Button>
      </div>
    </CardLayout>
  );
}
