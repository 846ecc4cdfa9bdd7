import { ROUTES, signInReady, type SIGN_IN_REASONS } from '@foyer/contract/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { GoogleIcon, KeyIcon } from '../../components/icons';
import { TextField } from '../../components/text-field';
import { call } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { sha256Hex } from '../../lib/password-hash';
import { redirectTarget, withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { deviceId, isFlagSet, readItem, removeItem } from '../../lib/storage';
import { SignInFailureAlert, signInFailure, type SignInFailure } from './sign-in-failure';

// Typed against the contract's list of reasons, so renaming it there breaks the build here.
const SESSION_EXPIRED: (typeof SIGN_IN_REASONS)[number] = 'sessionExpired';

/** Spec §2, §4, §5, §8: sign-in with email and password. */
export function SignIn() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const from = params.get('from');
  const reason = params.get('reason');

  // Read once, when the screen opens (spec §4).
  const [bounceHome] = useState(() => readItem('discoursePending') !== null);
  const [forwardToSso] = useState(() => isFlagSet('preferSso'));
  const [sessionExpired] = useState(() => reason === SESSION_EXPIRED || isFlagSet('sessionExpired'));

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<SignInFailure | null>(null);

  useEffect(() => {
    // Spec §4: while a forum sign-in is pending, sign-in bounces to the default home page.
    if (bounceHome) window.location.replace(config.defaultHome);
  }, [bounceHome, config.defaultHome]);

  useEffect(() => {
    // The stored session-expired notice is shown once, then forgotten.
    if (sessionExpired) removeItem('sessionExpired');
  }, [sessionExpired]);

  if (bounceHome) return <PageSpinner />;
  // Spec §4: a remembered SSO preference forwards to SSO sign-in, keeping from and reason.
  if (forwardToSso) return <Navigate to={withQuery(ROUTES.ssoSignIn, { from, reason })} replace />;

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
      return;
    }
    const result = await call('signin', { body: { email: email.trim(), hashPassword, deviceId: deviceId() } });
    if (result.ok) {
      // The session cookie is already set (HttpOnly); leave the app with the spinner still on.
      window.location.assign(redirectTarget(from, config));
      return;
    }
    setFailure(signInFailure(result.code));
    setSubmitting(false);
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
          {t('signIn.noAccount')} <Link to={ROUTES.signUp}>{t('signIn.signUpLink')}</Link>
        </p>
      }
    >
      {failure !== null ? (
        <SignInFailureAlert failure={failure} from={from} />
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
            value={password}
            onValueChange={setPassword}
            disabled={submitting}
          />
          <p className="form-aside">
            <Link to={ROUTES.forgotPassword}>{t('signIn.forgotPassword')}</Link>
          </p>
        </div>
        <Button type="submit" variant="strong" block disabled={!ready} loading={submitting}>
          {submitting ? t('signIn.submitting') : t('signIn.submit')}
        </Button>
      </form>

      <div className="divider">
        <span>{t('common.or')}</span>
      </div>

      <div className="stack">
        <Button variant="outline" block to={withQuery(ROUTES.ssoSignIn, { from })} icon={<KeyIcon />}>
          {t('signIn.withSso')}
        </Button>
        <Button variant="outline" block to={withQuery(ROUTES.socialAuth, { from })} icon={<GoogleIcon />}>
          {t('signIn.withGoogle')}
        </Button>
      </div>
    </CardLayout>
  );
}
