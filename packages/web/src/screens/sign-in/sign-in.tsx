import { ROUTES, signInReady, type SIGN_IN_REASONS } from '@foyer/contract/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { GoogleIcon, KeyIcon } from '../../components/icons';
import { TextField } from '../../components/text-field';
import { call } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { pageQuery } from '../../lib/page-query';
import { sha256Hex } from '../../lib/password-hash';
import { redirectTarget, withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { deviceId, isFlagSet, readItem, removeItem } from '../../lib/storage';
import { SignInFailureAlert, signInFailure, type SignInFailure } from './sign-in-failure';

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

  // Spec §4: while a forum sign-in is pending, sign-in bounces to the default home page; a
  // remembered SSO preference forwards to SSO sign-in, keeping from and reason.
  const [leaveFor] = useState(() => {
    if (readItem('discoursePending') !== null) return config.defaultHome;
    if (isFlagSet('preferSso')) return withQuery(ROUTES.ssoSignIn, { from, reason });
    return null;
  });
  const [sessionExpired] = useState(() => reason === SESSION_EXPIRED || isFlagSet('sessionExpired'));

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<SignInFailure | null>(null);

  useEffect(() => {
    // replace: the way back skips this screen, which would only send the visitor off again.
    if (leaveFor !== null) window.location.replace(leaveFor);
  }, [leaveFor]);

  useEffect(() => {
    // The stored session-expired notice is shown once, then forgotten.
    if (sessionExpired) removeItem('sessionExpired');
  }, [sessionExpired]);

  if (leaveFor !== null) return <PageSpinner />;

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
          {t('signIn.noAccount')} <a href={ROUTES.signUp}>{t('signIn.signUpLink')}</a>
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
            <a href={ROUTES.forgotPassword}>{t('signIn.forgotPassword')}</a>
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
