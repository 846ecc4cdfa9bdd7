import { ROUTES, signInReady, type SIGN_IN_REASONS } from '@foyer/contract/core';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { GoogleIcon, KeyIcon } from '../../components/icons';
import { TextField } from '../../components/text-field';
import { ThirdPartyScripts } from '../../components/third-party-scripts';
import { call } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { pageQuery } from '../../lib/page-query';
import { sha256Hex } from '../../lib/password-hash';
import { withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { signedInTarget, useSignedInBounce } from '../../lib/signed-in';
import { deviceId, isFlagSet, readItem, removeItem } from '../../lib/storage';
import { SignInFailureAlert, signInFailure, type SignInFailure } from './sign-in-failure';
import { clientParams } from '../../lib/client-params';

// Typed against the contract's list of reasons, so renaming it there breaks the build here.
const SESSION_EXPIRED: (typeof SIGN_IN_REASONS)[number] = 'sessionExpired';

/**
 * Spec §2, §4, §5, §8: sign-in with email and password. The first screen most visitors see, so
 * it needs no router (page.tsx renders it without one, to keep react-router out of its bundle):
 * the query comes from the page's address, and every way off the screen is a full page load.
 */
export function SignIn() {
  const t = useT();
  const config = useRuntimeConfig();
  // Read once, when the screen opens (spec §4), as is everything below that decides where to go.
  const [query] = useState(pageQuery);
  const from = query.get('from');
  const reason = query.get('reason');
  // A native app or the extension that opened this page (spec §2's recognised parameters): the
  // Google and SSO sign-ins it leads to hand their token to that client, not to this browser.
  const client = clientParams(query);

  // Spec §4: while a forum sign-in is pending, sign-in bounces to the default home page; a
  // remembered SSO preference forwards to SSO sign-in, keeping from and reason.
  const [leaveFor] = useState(() => {
    if (readItem('discoursePending') !== null) return config.defaultHome;
    if (isFlagSet('preferSso')) return withQuery(ROUTES.ssoSignIn, { from, reason, ...client });
    return null;
  });
  const [sessionExpired] = useState(() => reason === SESSION_EXPIRED || isFlagSet('sessionExpired'));
  const session = useSignedInBounce(from, config, leaveFor === null);

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<SignInFailure | null>(null);
  // The address the failure was about: the SSO link of the reasons carries it along.
  const [failedEmail, setFailedEmail] = useState('');
  const [failures, setFailures] = useState(0);
  const passwordRef = useRef<HTMLInputElement>(null);
  const ssoLinkRef = useRef<HTMLAnchorElement>(null);
  const failureId = useId();
  // The attempt that failed, for the resend offered with unverifiedAccount (decision 0020).
  const attemptRef = useRef({ email: '', hashPassword: '' });

  useEffect(() => {
    // After a failure the person goes on in the password field, its text selected to retype (and
    // Enter there tries again); the field is described by the alert, which is also announced.
    // Where the domain requires SSO no password helps: the focus goes to the SSO link instead.
    if (failures === 0) return;
    if (ssoLinkRef.current !== null) {
      ssoLinkRef.current.focus();
      return;
    }
    passwordRef.current?.focus();
    passwordRef.current?.select();
  }, [failures]);

  useEffect(() => {
    // Back to a page kept in the back-forward cache: no password left in it, no spinner stuck.
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setPassword('');
      setSubmitting(false);
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  useEffect(() => {
    // replace: the way back skips this screen, which would only send the visitor off again.
    if (leaveFor === null) return;
    // The forum-pending bounce happens once per flag: a stale flag with no session would
    // otherwise send /home → /sign-in → /home forever (/home sends the signed-out to sign-in).
    removeItem('discoursePending');
    window.location.replace(leaveFor);
  }, [leaveFor]);

  useEffect(() => {
    // The stored session-expired notice is shown once, then forgotten.
    if (sessionExpired) removeItem('sessionExpired');
  }, [sessionExpired]);

  if (leaveFor !== null) return <PageSpinner />;
  if (session === 'checking') return <PageSpinner delayed />;

  const ready = signInReady(email, password);

  async function submit() {
    if (!ready || submitting) return;
    setSubmitting(true);
    setFailure(null);
    let hashPassword: string;
    try {
      hashPassword = await sha256Hex(password);
    } catch {
      setFailure(signInFailure('unexpectedError'));
      setSubmitting(false);
      setFailures((count) => count + 1);
      return;
    }
    attemptRef.current = { email: email.trim(), hashPassword };
    const result = await call('signin', { body: { ...attemptRef.current, deviceId: deviceId() } });
    if (result.ok) {
      // The session cookie is already set (HttpOnly). The password leaves the page's memory, and
      // sign-in leaves the history: Back from where the person lands must not show the form
      // again, filled or not (and a fresh sign-in page would only send them on).
      setPassword('');
      window.location.replace(signedInTarget(from, config));
      return;
    }
    setFailure(signInFailure(result.code));
    setFailedEmail(email.trim());
    setSubmitting(false);
    setFailures((count) => count + 1);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  return (
    <CardLayout
      title={t('signIn.title')}
      footer={
        <p>
          {t('signIn.noAccount')} <a href={withQuery(ROUTES.signUp, { from })}>{t('signIn.signUpLink')}</a>
        </p>
      }
    >
      {failure !== null ? (
        <SignInFailureAlert
          id={failureId}
          failure={failure}
          from={from}
          email={failedEmail}
          resend={() => call('resendVerificationBySignIn', { body: attemptRef.current })}
          ssoLinkRef={ssoLinkRef}
          client={client}
        />
      ) : sessionExpired ? (
        <Alert variant="info">
          <p>{t('signIn.sessionExpired')}</p>
        </Alert>
      ) : null}

      {/* noValidate: spec §5 asks only for non-blank fields; the server answers the rest. */}
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
          onValueChange={setEmail}
          disabled={submitting}
        />
        <div className="field-group">
          <TextField
            label={t('common.password')}
            type="password"
            name="password"
            autoComplete="current-password"
            required
            inputRef={passwordRef}
            describedBy={failure === null ? undefined : failureId}
            value={password}
            onValueChange={setPassword}
            disabled={submitting}
          />
          <p className="form-aside">
            <a href={ROUTES.forgotPassword}>{t('signIn.forgotPassword')}</a>
          </p>
        </div>
        <Button type="submit" variant="strong" block disabled={!ready} loading={submitting}>
          {submitting ? t('signIn.submitting') : t('signIn.submit')}
        </Button>
      </form>
      {/* Decision 0025: the tag manager and the support widget, once this form is on screen. */}
      <ThirdPartyScripts />

      <div className="divider">
        <span>{t('common.or')}</span>
      </div>

      <div className="stack">
        <Button variant="outline" block to={withQuery(ROUTES.ssoSignIn, { from, ...client })} icon={<KeyIcon />}>
          {t('signIn.withSso')}
        </Button>
        <Button variant="outline" block to={withQuery(ROUTES.socialAuth, { from, ...client })} icon={<GoogleIcon />}>
          {t('signIn.withGoogle')}
        </Button>
      </div>
    </CardLayout>
  );
}
