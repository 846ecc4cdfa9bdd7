import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { SuccessIcon } from '../../components/icons';
import { call, globalErrorKey } from '../../lib/api';
import { fillNodes, useT } from '../../lib/i18n';
import { marketingUrl } from '../../lib/marketing';
import { useRuntimeConfig } from '../../lib/runtime-config';

/** What the sign-up's 'Check Your Email' step hands over: in the history entry, never the address bar. */
export interface DeferredSignUp {
  email: string;
  userId: string;
}

function deferredSignUp(state: unknown): DeferredSignUp | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const { email, userId } = state as Partial<Record<keyof DeferredSignUp, unknown>>;
  return typeof email === 'string' && typeof userId === 'string' ? { email, userId } : undefined;
}

type Resend = 'idle' | 'sending' | 'sent';

/**
 * Spec §2 `/defer-email-verification` (screen not shown; decision 0023). A person who signed up
 * and will not verify now: the account is activated by the emailed link only (decision 0014), so
 * going on means leaving with the link still working for 24 hours, from any device, and the
 * reminders kept: the resend here while the sign-up is known, and sign-in's unverified answer
 * with its own resend (decision 0020) whenever they come back first.
 */
export function DeferEmailVerification() {
  const t = useT();
  const config = useRuntimeConfig();
  const signUp = deferredSignUp(useLocation().state);
  const [resend, setResend] = useState<Resend>('idle');
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (resend === 'sent') sentRef.current?.focus();
  }, [resend]);

  async function resendEmail(pending: DeferredSignUp) {
    setResend('sending');
    setFailure(null);
    const result = await call('resendVerification', { body: pending });
    if (result.ok) {
      setResend('sent');
      return;
    }
    setFailure(globalErrorKey(result.code));
    setResend('idle');
  }

  // Going on: the product's public site when deployed; sign-in locally, as forgot-password's
  // sign-up link does (spec §2), since no marketing site runs beside a local Foyer.
  const inApp = config.env === 'local' || config.env === 'test';
  const onward = (inApp ? undefined : marketingUrl(config, '/')) ?? ROUTES.signIn;

  return (
    <CardLayout title={t('deferVerification.title')} focusHeading>
      <p className="lead">
        {signUp === undefined
          ? t('deferVerification.bodyNoEmail')
          : fillNodes(t('deferVerification.body'), {
              email: (
                <strong>
                  <EmailText email={signUp.email} />
                </strong>
              ),
            })}
      </p>
      <Alert variant="info">
        <p>{t('deferVerification.reminder')}</p>
      </Alert>

      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}

      {signUp === undefined ? null : (
        <div className="resend">
          {resend === 'sent' ? null : (
            <p className="resend-offer">
              <span>{t('signUp.didNotGet')}</span>
              <Button variant="underlined" className="button-inline" loading={resend === 'sending'} onClick={() => void resendEmail(signUp)}>
                {t('signUp.resend')}
              </Button>
            </p>
          )}
          <div role="status">
            {resend === 'sent' ? (
              <p ref={sentRef} tabIndex={-1} className="inline-success">
                <SuccessIcon />
                <span>{t('signUp.emailSent')}</span>
              </p>
            ) : null}
          </div>
        </div>
      )}

      {onward.startsWith('/') ? (
        <Button variant="strong" block to={onward}>
          {t('deferVerification.continue')}
        </Button>
      ) : (
        <Button variant="strong" block href={onward}>
          {t('deferVerification.continue')}
        </Button>
      )}
    </CardLayout>
  );
}
