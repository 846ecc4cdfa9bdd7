import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { Alert } from '../../components/alert';
import { ErrorText } from '../../components/error-text';
import { globalErrorKey, handleFailure, type FailureCode, type FailureHandlers } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { withQuery } from '../../lib/redirect';

export type SignInFailure = { kind: 'text'; key: MessageKey } | { kind: 'reasons' };

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
  unverifiedAccount: text('error.unverifiedAccount'),
  invalidCredentials: reasons,
  invalidRequest: reasons,
  notSignedIn: reasons,
  notFound: reasons,
  ssoRequired: reasons,
  ssoNotRecognized: reasons,
};

export function signInFailure(code: FailureCode): SignInFailure {
  return handleFailure(code, SIGN_IN_HANDLERS, (other) => ({ kind: 'text', key: globalErrorKey(other) }));
}

/** Announced when it appears (role alert); focus stays in the form (sign-in.tsx). */
export function SignInFailureAlert({ id, failure, from }: { id: string; failure: SignInFailure; from: string | null }) {
  const t = useT();
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
          {t('signIn.failure.sso')} <a href={withQuery(ROUTES.ssoSignIn, { from })}>{t('signIn.failure.ssoLink')}</a>
        </li>
      </ul>
    </Alert>
  );
}
