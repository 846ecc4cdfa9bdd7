import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { SuccessIcon } from '../../components/icons';
import { call, globalErrorKey } from '../../lib/api';
import { fillNodes, useT } from '../../lib/i18n';

type Resend = 'idle' | 'sending' | 'sent';

/**
 * Spec §2, §4: 'Check Your Email' after a sign-up without a redirect address. Resending goes
 * idle → sending → sent; once sent the link is gone and 'Email sent!' is announced and focused
 * (the control the visitor used has disappeared). 'Start over' brings back an empty form.
 */
export function CheckEmail({ email, userId, onStartOver }: { email: string; userId: string; onStartOver: () => void }) {
  const t = useT();
  const [resend, setResend] = useState<Resend>('idle');
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);
  const navigate = useNavigate();

  useEffect(() => {
    if (resend === 'sent') sentRef.current?.focus();
  }, [resend]);

  async function resendEmail() {
    setResend('sending');
    setFailure(null);
    const result = await call('resendVerification', { body: { email, userId } });
    if (result.ok) {
      setResend('sent');
      return;
    }
    // The rate limit and transport failures have their own texts; anything else is unexpected.
    setFailure(globalErrorKey(result.code));
    setResend('idle');
  }

  return (
    <CardLayout title={t('signUp.checkEmailTitle')} focusHeading>
      <p className="lead">
        {fillNodes(t('signUp.checkEmailBody'), {
          email: (
            <strong>
              <EmailText email={email} />
            </strong>
          ),
        })}
      </p>

      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}

      <div className="resend">
        {resend === 'sent' ? null : (
          <p className="resend-offer">
            <span>{t('signUp.didNotGet')}</span>
            <Button variant="underlined" className="button-inline" loading={resend === 'sending'} onClick={() => void resendEmail()}>
              {t('signUp.resend')}
            </Button>
          </p>
        )}
        {/* Always in the page, so that its content is announced when it appears. */}
        <div role="status">
          {resend === 'sent' ? (
            <p ref={sentRef} tabIndex={-1} className="inline-success">
              <SuccessIcon />
              <span>{t('signUp.emailSent')}</span>
            </p>
          ) : null}
        </div>
      </div>

      {/* Decision 0023: going on before verifying; the sign-up travels in the history entry, not the address. */}
      <Button variant="flat" block onClick={() => void navigate(ROUTES.deferEmailVerification, { state: { email, userId } })}>
        {t('signUp.verifyLater')}
      </Button>
      <Button variant="outline" block onClick={onStartOver}>
        {t('signUp.startOver')}
      </Button>
    </CardLayout>
  );
}
