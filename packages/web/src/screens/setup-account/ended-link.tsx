import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { SuccessIcon } from '../../components/icons';
import { call, globalErrorKey } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { useSignedInBounce } from '../../lib/signed-in';

/**
 * Decision 0020: a verification link of an account that is verified already (a second click,
 * Back after verifying, an older link). A browser with a session goes on to the default home, as
 * sign-in would send it; anyone else reads that the email is verified and gets sign-in, not
 * spec §8's text for invitations, which asks an administrator for a link nobody needs.
 */
export function AlreadyVerified({ title }: { title: string }) {
  const t = useT();
  const config = useRuntimeConfig();
  // Mounted only for this answer, so the check starts as 'checking' and no text flashes by.
  const session = useSignedInBounce(null, config);
  if (session === 'checking') return <PageSpinner delayed />;
  return (
    <CardLayout title={title}>
      <Alert variant="info" focusOnShow>
        <p>{t('error.alreadyVerified')}</p>
      </Alert>
      <Button variant="strong" block to={ROUTES.signIn}>
        {t('setup.signIn')}
      </Button>
    </CardLayout>
  );
}

type Sending = 'idle' | 'sending' | 'sent';

/**
 * Decision 0020: a verification link that a newer one replaced ('Click to resend.' was used, or
 * the resend after sign-in). It says so and offers another link for the same sign-up, sent to the
 * same inbox; like the resend of 'Check Your Email' (spec §4) it goes idle → sending → sent, the
 * button gone once sent and the confirmation announced and focused.
 */
export function SupersededLink({ title, token }: { title: string; token: string }) {
  const t = useT();
  const [sending, setSending] = useState<Sending>('idle');
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (sending === 'sent') sentRef.current?.focus();
  }, [sending]);

  async function sendAnother() {
    setSending('sending');
    setFailure(null);
    const result = await call('resendVerificationByLink', { body: { token } });
    if (result.ok) {
      setSending('sent');
      return;
    }
    // The rate limit and transport failures have their own texts; anything else is unexpected.
    setFailure(globalErrorKey(result.code));
    setSending('idle');
  }

  return (
    <CardLayout title={title}>
      <Alert variant="info" focusOnShow>
        <p>{t('error.linkSuperseded')}</p>
      </Alert>
      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}
      {/* Always in the page, so that its content is announced when it appears. */}
      <div role="status">
        {sending === 'sent' ? (
          <p ref={sentRef} tabIndex={-1} className="inline-success">
            <SuccessIcon />
            <span>{t('setup.anotherSent')}</span>
          </p>
        ) : null}
      </div>
      <div className="stack">
        {sending === 'sent' ? null : (
          <Button variant="strong" block loading={sending === 'sending'} onClick={() => void sendAnother()}>
            {t('setup.sendAnother')}
          </Button>
        )}
        <Button variant="flat" block to={ROUTES.signIn}>
          {t('common.backToSignIn')}
        </Button>
      </div>
    </CardLayout>
  );
}
