import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { ConfirmSignIn } from '../../components/confirm-sign-in';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { Spinner } from '../../components/spinner';
import { call } from '../../lib/api';
import { fetchAnswer } from '../../lib/answers';
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
 *
 * The token is checked first (`account/exchangeSSOTransferToken/check`, which spends nothing). A
 * sign-in this browser started is bound to it and goes on at once; any other token (a sign-in the
 * identity provider started, or an address someone sent) names its account and waits for the
 * person to continue (decision 0021): a link must not sign a browser in to someone else's account
 * unasked.
 */
export function SsoTransfer() {
  const t = useT();
  const config = useRuntimeConfig();
  const { transferToken = '' } = useParams();
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const [confirmAs, setConfirmAs] = useState<string | null>(null);
  // The check and the exchange each go once: StrictMode's second run of the effect must not repeat them.
  const sent = useRef(false);

  const exchange = useCallback(async () => {
    // Not aborted on unmount: the one request is left to finish (see `sent`).
    const result = await call('exchangeSSOTransferToken', { body: { token: transferToken, deviceId: deviceId() } });
    if (!result.ok) {
      setConfirmAs(null);
      setFailure(ssoTransferFailure(result.code));
      return;
    }
    const from = readSessionItem('ssoFrom');
    removeSessionItem('ssoFrom');
    // replace: Back must not land on a spent token's address.
    window.location.replace(signedInTarget(from, config));
  }, [transferToken, config]);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void (async () => {
      const checked = await fetchAnswer('exchangeSSOTransferTokenCheck', { body: { token: transferToken } });
      if (!checked.ok) setFailure(ssoTransferFailure(checked.code));
      else if (checked.data.boundToThisBrowser) await exchange();
      else setConfirmAs(checked.data.email);
    })();
  }, [transferToken, exchange]);

  if (confirmAs !== null) return <ConfirmSignIn title={t('ssoTransfer.title')} email={confirmAs} onContinue={exchange} />;

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
