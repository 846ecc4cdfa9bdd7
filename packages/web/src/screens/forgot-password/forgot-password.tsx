import { MARKETING_PATHS, ROUTES, isValidEmail, type MessageKey } from '@foyer/contract/core';
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { TextField, type Validity } from '../../components/text-field';
import { ThirdPartyScripts } from '../../components/third-party-scripts';
import { call, globalErrorKey, handleFailure, type FailureCode, type FailureHandlers } from '../../lib/api';
import { botCheckToken, preloadBotCheck } from '../../lib/bot-check';
import { useT } from '../../lib/i18n';
import { useAfterPress } from '../../lib/form';
import { marketingUrl } from '../../lib/marketing';
import { withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';

/**
 * Spec §8, forgot password: the same three texts as sign-up; the rate limit and transport
 * failures go to the global fallback, anything else is 'There was an unexpected error.'. An
 * unknown address is not an error: the server answers it as it answers a known one (no account
 * enumeration), and so does this screen.
 */
const FORGOT_HANDLERS: FailureHandlers<MessageKey> = {
  ssoRequired: () => 'error.ssoRequired',
  reCaptchaFail: () => 'error.reCaptchaFail',
};

function forgotFailure(code: FailureCode): MessageKey {
  return handleFailure(code, FORGOT_HANDLERS, globalErrorKey);
}

/** Spec §2, §4, §5: request a reset email. idle → submitting → always 'done', form cleared and hidden. */
export function ForgotPassword() {
  const t = useT();
  const config = useRuntimeConfig();
  const [email, setEmail] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [done, setDone] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(null);
  // The address the failure was about: the SSO pointer carries it along.
  const [failedEmail, setFailedEmail] = useState('');
  const [failures, setFailures] = useState(0);
  const [judged, setJudged] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);
  const failureId = useId();
  const afterPress = useAfterPress();

  useEffect(() => preloadBotCheck(config.reCaptchaSiteKey), [config.reCaptchaSiteKey]);

  useEffect(() => {
    // After a failure the person goes on in the email field (Enter there tries again); the field
    // is described by the alert, which is also announced.
    if (failures > 0) emailRef.current?.focus();
  }, [failures]);

  // Spec §5: checked as typed, which enables the button the moment the address is whole; empty
  // is neither valid nor invalid. 'Not valid' is said only once the person has left the field or
  // tried to send: on the first keystroke every address is still incomplete, and calling it
  // invalid then only scolds.
  const trimmed = email.trim();
  const valid = isValidEmail(trimmed);
  const validity: Validity | undefined = trimmed === '' ? undefined : valid ? 'success' : judged ? 'error' : undefined;

  const onFormKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    // Enter with the button disabled sends nothing (no implicit submission): it still judges.
    if (event.key === 'Enter') setJudged(true);
  };

  async function submit() {
    if (!valid || submitting) return;
    setSubmitting(true);
    setFailure(null);
    const reCaptchaToken = await botCheckToken(config.reCaptchaSiteKey, 'forgot_password');
    const result = await call('forgotPassword', { body: { email: trimmed, reCaptchaToken } });
    if (result.ok) {
      setEmail('');
      setDone(true);
    } else {
      setFailure(forgotFailure(result.code));
      setFailedEmail(trimmed);
      setFailures((count) => count + 1);
    }
    setSubmitting(false);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  // Spec §2: the in-app sign-up route locally, otherwise the marketing site's get-started page.
  const inApp = config.env === 'local' || config.env === 'test';
  const getStarted = inApp ? undefined : marketingUrl(config, MARKETING_PATHS.getStarted);
  const footer = (
    <p>{getStarted === undefined ? <Link to={ROUTES.signUp}>{t('forgot.noAccount')}</Link> : <a href={getStarted}>{t('forgot.noAccount')}</a>}</p>
  );

  if (done) {
    return (
      <CardLayout title={t('forgot.title')} footer={footer}>
        <Alert variant="success" focusOnShow>
          <p>{t('forgot.done')}</p>
          <ul className="alert-list">
            <li>{t('forgot.reasonSpam')}</li>
            <li>{t('forgot.reasonSso')}</li>
            <li>{t('forgot.reasonOldVersion')}</li>
          </ul>
        </Alert>
        <Button variant="outline" block to={ROUTES.signIn}>
          {t('common.backToSignIn')}
        </Button>
      </CardLayout>
    );
  }

  return (
    <CardLayout title={t('forgot.title')} footer={footer}>
      <p className="lead">{t('forgot.intro')}</p>
      {failure === null ? null : (
        <Alert id={failureId} variant="error">
          <ErrorText messageKey={failure} />
          {failure === 'error.ssoRequired' ? (
            // Spec §8 keeps its sign-up wording here; this line says what it means for a reset.
            <p>
              {t('forgot.ssoRequiredNext')} <a href={withQuery(ROUTES.ssoSignIn, { email: failedEmail })}>{t('signIn.withSso')}</a>
            </p>
          ) : null}
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} onKeyDown={onFormKeyDown} noValidate>
        <TextField
          label={t('common.email')}
          type="email"
          name="email"
          autoComplete="email"
          autoFocus
          required
          value={email}
          onValueChange={(value) => {
            setEmail(value);
            // Emptied: the next address starts unjudged again.
            if (value.trim() === '') setJudged(false);
          }}
          onBlur={() => afterPress(() => setJudged(true))}
          inputRef={emailRef}
          describedBy={failure === null ? undefined : failureId}
          disabled={submitting}
          validity={validity}
          message={validity === 'error' ? t('validation.emailInvalid') : undefined}
        />
        <Button type="submit" variant="strong" block disabled={!valid} loading={submitting}>
          {submitting ? t('forgot.submitting') : t('forgot.submit')}
        </Button>
      </form>
      {/* Decision 0025: the tag manager and the support widget, once this form is on screen. */}
      <ThirdPartyScripts />
      <Button variant="flat" block to={ROUTES.signIn}>
        {t('common.backToSignIn')}
      </Button>
    </CardLayout>
  );
}
