import { LIMITS, ROUTES, ssoSignInReady, type MessageKey, type SIGN_IN_REASONS } from '@foyer/contract/core';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { TextField } from '../../components/text-field';
import { ThirdPartyScripts } from '../../components/third-party-scripts';
import { fetchAnswer } from '../../lib/answers';
import { useT } from '../../lib/i18n';
import { withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { removeSessionItem, writeSessionItem } from '../../lib/session-store';
import { useSignedInBounce } from '../../lib/signed-in';
import { isFlagSet, readItem, removeItem, writeItem } from '../../lib/storage';
import { ssoStartBody, ssoStartFailure } from './sso-request';
import { clientParams } from '../../lib/client-params';

const SESSION_EXPIRED: (typeof SIGN_IN_REASONS)[number] = 'sessionExpired';

function forgetRememberedEmail(): void {
  removeItem('preferSso');
  removeItem('ssoEmail');
}

/**
 * Spec §2, §4, §5, §8 `/sso-sign-in`: an email, 'Remember email', Sign In (enabled once the
 * trimmed email is non-empty), 'Sign in without SSO' and 'What's SSO?'. The SSO start call
 * answers the identity provider's address and the browser goes there; `from` waits in the tab
 * for `/ssol/:transferToken` (decision 0022).
 *
 * 'Remember email' is stored when the sign-in starts: the preferred-SSO flag, which makes
 * `/sign-in` forward here, and the address, which fills the field next time. Editing the address
 * forgets both about 50 ms later (spec §9): what is remembered is no longer what is typed, and
 * Sign In stores the new one if the box is still ticked.
 */
export function SsoSignIn() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  // Read once, when the screen opens, like sign-in's query.
  const [query] = useState(() => new URLSearchParams(params));
  const from = query.get('from');
  const reason = query.get('reason');
  const sessionExpired = reason === SESSION_EXPIRED;
  // A remembered preference skips sign-in's own session check, so the check happens here.
  const session = useSignedInBounce(from, config);

  const [email, setEmail] = useState(() => query.get('email') ?? readItem('ssoEmail') ?? '');
  const [remember, setRemember] = useState(() => isFlagSet('preferSso'));
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const [failures, setFailures] = useState(0);
  const [explained, setExplained] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);
  const forgetTimer = useRef<number | undefined>(undefined);
  const failureId = useId();
  const explanationId = useId();

  useEffect(() => () => window.clearTimeout(forgetTimer.current), []);

  useEffect(() => {
    // After a failure the person goes on in the email field; the alert describes it.
    if (failures > 0) emailRef.current?.focus();
  }, [failures]);

  useEffect(() => {
    // Back to a page kept in the back-forward cache (from the identity provider): no spinner stuck.
    const restored = (event: PageTransitionEvent) => {
      if (event.persisted) setSubmitting(false);
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  if (session === 'checking') return <PageSpinner delayed />;

  const ready = ssoSignInReady(email);

  const onEmailChange = (value: string) => {
    setEmail(value);
    window.clearTimeout(forgetTimer.current);
    forgetTimer.current = window.setTimeout(forgetRememberedEmail, LIMITS.rememberedEmailClearMs);
  };

  async function submit() {
    if (!ready || submitting) return;
    setSubmitting(true);
    setFailure(null);
    const trimmed = email.trim();
    const result = await fetchAnswer('ssoStart', { body: ssoStartBody(trimmed, query) });
    // Only an http(s) address is followed: the answer decides where the whole page goes.
    if (result.ok && /^https?:\/\//i.test(result.data.url)) {
      // A pending 'forget' must not undo what is stored now.
      window.clearTimeout(forgetTimer.current);
      if (remember) {
        writeItem('preferSso', 'true');
        writeItem('ssoEmail', trimmed);
      } else {
        forgetRememberedEmail();
      }
      if (from === null) removeSessionItem('ssoFrom');
      else writeSessionItem('ssoFrom', from);
      window.location.assign(result.data.url);
      return;
    }
    setFailure(result.ok ? 'error.unexpected' : ssoStartFailure(result.code));
    setSubmitting(false);
    setFailures((count) => count + 1);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  return (
    <CardLayout title={t('sso.title')}>
      <p className="lead">{t('sso.intro')}</p>
      {failure !== null ? (
        <Alert id={failureId} variant="error">
          <ErrorText messageKey={failure} />
        </Alert>
      ) : sessionExpired ? (
        <Alert variant="info">
          <p>{t('signIn.sessionExpired')}</p>
        </Alert>
      ) : null}

      {/* noValidate: spec §5 asks only for a non-blank email; the service answers the rest. */}
      <form className="form" onSubmit={onSubmit} noValidate>
        <TextField
          label={t('common.email')}
          type="email"
          name="email"
          autoComplete="username"
          autoFocus
          required
          clearable
          value={email}
          onValueChange={onEmailChange}
          inputRef={emailRef}
          describedBy={failure === null ? undefined : failureId}
          disabled={submitting}
        />
        <label className="checkbox">
          <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} disabled={submitting} />
          <span>{t('sso.rememberEmail')}</span>
        </label>
        <Button type="submit" variant="strong" block disabled={!ready} loading={submitting}>
          {submitting ? t('sso.submitting') : t('sso.submit')}
        </Button>
      </form>
      {/* Decision 0025: the tag manager and the support widget, once this form is on screen. */}
      <ThirdPartyScripts />

      <div className="stack">
        <Button
          variant="flat"
          block
          to={withQuery(ROUTES.signIn, { from, reason, ...clientParams(query) })}
          // Spec §4: sign-in forwards here while the flag is set; this is the way out of that loop.
          onClick={forgetRememberedEmail}
        >
          {t('sso.withoutSso')}
        </Button>
        {/* The spec names no help page: the answer is given here, where the question is asked. */}
        <button
          type="button"
          className="button button-underlined"
          aria-expanded={explained}
          aria-controls={explanationId}
          onClick={() => setExplained((open) => !open)}
        >
          {t('sso.whatIsSso')}
        </button>
        <p id={explanationId} className="notice" hidden={!explained}>
          {t('sso.whatIsSsoBody')}
        </p>
      </div>
    </CardLayout>
  );
}
