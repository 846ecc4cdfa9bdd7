import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { ErrorText } from '../../components/error-text';
import { SuccessIcon } from '../../components/icons';
import { globalErrorKey, handleFailure, type CallResult, type FailureCode, type FailureHandlers } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { withQuery } from '../../lib/redirect';
import type { ClientParams } from '../../lib/client-params';

export type SignInFailure = { kind: 'text'; key: MessageKey } | { kind: 'reasons' } | { kind: 'unverified' } | { kind: 'sso' };

const text = (key: MessageKey) => (): SignInFailure => ({ kind: 'text', key });
const reasons = (): SignInFailure => ({ kind: 'reasons' });

/**
 * Spec §8, sign-in: three account states have their own text; a failure about the credentials
 * themselves gets the list of likely reasons, which never says which one applies (no account
 * enumeration). Server faults, the XSRF check, the rate limit and transport failures go to the
 * global fallback (their own text, else 'There was an unexpected error.'): blaming the
 * password when the service is down would send people to reset it for nothing.
 */
const SIGN_IN_HANDLERS: FailureHandlers<SignInFailure> = {
  deactivatedAccount: text('error.deactivatedAccount'),
  accountLocked: text('error.accountLocked'),
  unverifiedAccount: () => ({ kind: 'unverified' }),
  invalidCredentials: reasons,
  invalidRequest: reasons,
  notSignedIn: reasons,
  notFound: reasons,
  // Decided by the email's domain alone (decision 0022), so it tells nothing about an account.
  ssoRequired: () => ({ kind: 'sso' }),
  ssoNotRecognized: reasons,
};

export function signInFailure(code: FailureCode): SignInFailure {
  return handleFailure(code, SIGN_IN_HANDLERS, (other) => ({ kind: 'text', key: globalErrorKey(other) }));
}

/**
 * Decision 0020: spec §8's unverified text, and a way forward: a fresh verification link for the
 * sign-up whose password was just typed (the service checks it again and answers the same
 * whatever happened). idle → sending → sent, like 'Check Your Email''s resend (spec §4): once
 * sent the button is gone and the confirmation is announced and focused.
 */
function UnverifiedAlert({ id, resend }: { id: string; resend: () => Promise<CallResult<undefined>> }) {
  const t = useT();
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | MessageKey>('idle');
  const sentRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state === 'sent') sentRef.current?.focus();
  }, [state]);
  const send = async () => {
    setState('sending');
    const result = await resend();
    setState(result.ok ? 'sent' : globalErrorKey(result.code));
  };
  return (
    <>
      <Alert id={id} variant="error">
        <p>{t('error.unverifiedAccount')}</p>
        {state === 'sent' ? null : (
          <p>
            <Button variant="underlined" className="button-inline" loading={state === 'sending'} onClick={() => void send()}>
              {t('signIn.resend')}
            </Button>
          </p>
        )}
      </Alert>
      <div role="status">
        {state === 'sent' ? (
          <p ref={sentRef} tabIndex={-1} className="inline-success">
            <SuccessIcon />
            <span>{t('signIn.resendSent')}</span>
          </p>
        ) : state === 'idle' || state === 'sending' ? null : (
          // The button was disabled while sending, which took the focus: it comes here.
          <div ref={(node) => node?.focus()} tabIndex={-1}>
            <ErrorText messageKey={state} />
          </div>
        )}
      </div>
    </>
  );
}

/**
 * Announced when it appears (role alert); focus stays in the form (sign-in.tsx), except for
 * `ssoRequired`, where no password helps: `ssoLinkRef` is then the SSO link, which sign-in.tsx
 * focuses. `email` is the address the failure was about: the SSO link fills it in on SSO sign-in.
 * `resend` sends the verification link again for the attempt that failed as unverified.
 */
export function SignInFailureAlert({
  id,
  failure,
  from,
  email,
  resend,
  ssoLinkRef,
  client,
}: {
  id: string;
  failure: SignInFailure;
  from: string | null;
  email: string;
  resend: () => Promise<CallResult<undefined>>;
  ssoLinkRef: RefObject<HTMLAnchorElement | null>;
  /** The app or extension the sign-in is for (lib/client-params.ts): the SSO links carry it on. */
  client: ClientParams;
}) {
  const t = useT();
  if (failure.kind === 'unverified') return <UnverifiedAlert id={id} resend={resend} />;
  if (failure.kind === 'sso') {
    // Spec §8 gives `ssoRequired`'s text to sign-up, Google and forgot password; it speaks of
    // signing up. Here it is said for signing in, with the way forward, which takes the focus.
    return (
      <Alert id={id} variant="error">
        <p>
          {t('signIn.ssoRequiredNext')}{' '}
          <a ref={ssoLinkRef} href={withQuery(ROUTES.ssoSignIn, { from, email, ...client })}>
            {t('signIn.failure.ssoLink')}
          </a>
        </p>
      </Alert>
    );
  }
  if (failure.kind === 'text') {
    return (
      <Alert id={id} variant="error">
        <ErrorText messageKey={failure.key} />
      </Alert>
    );
  }
  return (
    <Alert id={id} variant="error" title={t('signIn.failure.title')}>
      <ul className="alert-list">
        <li>{t('signIn.failure.noAccount')}</li>
        <li>
          {t('signIn.failure.wrongPassword')} <a href={ROUTES.forgotPassword}>{t('signIn.failure.resetLink')}</a>
        </li>
        <li>
          {t('signIn.failure.sso')} <a href={withQuery(ROUTES.ssoSignIn, { from, email, ...client })}>{t('signIn.failure.ssoLink')}</a>
        </li>
      </ul>
    </Alert>
  );
}
