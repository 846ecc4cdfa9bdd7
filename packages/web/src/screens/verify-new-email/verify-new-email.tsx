import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { ConfirmSignIn } from '../../components/confirm-sign-in';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { Spinner } from '../../components/spinner';
import { fetchAnswer } from '../../lib/answers';
import { globalErrorKey, type FailureCode } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { pageQuery } from '../../lib/page-query';
import { redirectTarget } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { deviceId } from '../../lib/storage';

/** A failure to show, and whether trying again could help (the link may still be good). */
export type VerifyNewEmailFailure = { key: MessageKey; retry: boolean };

/** The transport's failures (decision 0027): no answer came, so nothing is known about the link. */
const TRANSPORT: readonly FailureCode[] = ['network', 'aborted', 'timeout', 'unsupportedProtocol'];

/**
 * Spec §8: accountNotSetUp has its own text; any other answer is the link's generic one. When no
 * answer came (the transport's failures), their global texts, as on every screen (decision 0027),
 * with a retry: the link may still be good.
 */
export function verifyNewEmailFailure(code: FailureCode): VerifyNewEmailFailure {
  if (TRANSPORT.includes(code)) return { key: globalErrorKey(code), retry: true };
  return { key: code === 'accountNotSetUp' ? 'error.accountNotSetUp' : 'error.verifyNewEmailInvalid', retry: false };
}

/**
 * Spec §2, §7 `/verify-new-email/:token` (decision 0023): the link mailed to a new address. The
 * screen asks the service about the link first (`account/verifyNewEmail/check`, which spends
 * nothing). Unless this browser is signed in to another account than the link's, it then sends the
 * link at once (the POST, never the opening of the link, spends it), shows its progress, and once
 * the service has moved the account and signed this browser in goes to `next` (the service
 * answers it only when the allow-list accepts it, and the browser checks it again) or the default
 * home. Signed in to another account, it names the address the link signs in to and sends it only
 * when the person continues: a link the sender made for their own account must not move this
 * browser into it unasked (login CSRF).
 */
export function VerifyNewEmail() {
  const t = useT();
  const config = useRuntimeConfig();
  const { token = '' } = useParams();
  const [failure, setFailure] = useState<VerifyNewEmailFailure | null>(null);
  const [confirmAs, setConfirmAs] = useState<string | null>(null);
  // Single use: StrictMode's second run of the effect must not send it again.
  const sent = useRef(false);

  const verify = useCallback(async () => {
    const next = pageQuery().get('next');
    const result = await fetchAnswer('verifyNewEmail', { body: { token, deviceId: deviceId(), ...(next === null ? {} : { next }) } });
    if (!result.ok) {
      setConfirmAs(null);
      setFailure(verifyNewEmailFailure(result.code));
      return;
    }
    // replace: Back must not land on a spent link's address.
    window.location.replace(redirectTarget(result.data.redirectUrl ?? null, config));
  }, [token, config]);

  const open = useCallback(async () => {
    const checked = await fetchAnswer('verifyNewEmailCheck', { body: { token } });
    if (!checked.ok) setFailure(verifyNewEmailFailure(checked.code));
    else if (checked.data.signedInElsewhere) setConfirmAs(checked.data.email);
    else await verify();
  }, [token, verify]);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void open();
  }, [open]);

  if (confirmAs !== null) return <ConfirmSignIn title={t('verifyNewEmail.title')} email={confirmAs} onContinue={verify} />;

  if (failure === null) {
    return (
      <CardLayout title={t('verifyNewEmail.title')}>
        <div className="centred">
          <Spinner title={t('verifyNewEmail.verifying')} />
        </div>
      </CardLayout>
    );
  }

  return (
    <CardLayout title={t('verifyNewEmail.title')}>
      <Alert variant="error" focusOnShow>
        <ErrorText messageKey={failure.key} />
      </Alert>
      <div className="stack">
        {failure.retry ? (
          <Button
            variant="strong"
            block
            onClick={() => {
              setFailure(null);
              void open();
            }}
          >
            {t('common.retry')}
          </Button>
        ) : null}
        <Button variant={failure.retry ? 'flat' : 'outline'} block to={ROUTES.signIn}>
          {t('common.backToSignIn')}
        </Button>
      </div>
    </CardLayout>
  );
}
