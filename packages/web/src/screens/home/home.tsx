import { APP_ROUTES, ROUTES, type MessageKey, type SessionUser } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout, PageSpinner } from '../../components/card-layout';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { fetchAnswer } from '../../lib/answers';
import { call, globalErrorKey } from '../../lib/api';
import { fillNodes, useT } from '../../lib/i18n';
import { withQuery } from '../../lib/redirect';
import { ChangeEmailForm } from './change-email-form';

type SessionState = { status: 'loading' } | { status: 'ready'; user: SessionUser } | { status: 'failed'; key: MessageKey };

function fullName(user: SessionUser): string {
  return [user.firstName, user.lastName]
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * The plain signed-in page (decision 0005): who is signed in, a way out, and the change of email
 * (decision 0023) the product's settings page would offer. Without a session
 * it sends the visitor to sign-in with `from` pointing back here.
 */
export function Home() {
  const t = useT();
  const [session, setSession] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<MessageKey | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    void fetchAnswer('session', { signal: controller.signal }).then((result) => {
      if (controller.signal.aborted) return;
      if (result.ok) setSession({ status: 'ready', user: result.data.user });
      else if (result.code === 'notSignedIn') window.location.replace(withQuery(ROUTES.signIn, { from: APP_ROUTES.home }));
      else setSession({ status: 'failed', key: globalErrorKey(result.code) });
    });
    return () => controller.abort();
  }, [attempt]);

  async function signOut() {
    setSigningOut(true);
    setSignOutError(null);
    const result = await call('signout', { body: {} });
    // notSignedIn: the session had already ended, which is what signing out asks for.
    if (result.ok || result.code === 'notSignedIn') {
      window.location.assign(ROUTES.signIn);
      return;
    }
    setSignOutError(globalErrorKey(result.code));
    setSigningOut(false);
  }

  if (session.status === 'loading') return <PageSpinner />;

  if (session.status === 'failed') {
    return (
      <CardLayout title={t('common.errorTitle')}>
        <Alert variant="error">
          <ErrorText messageKey={session.key} />
        </Alert>
        <div className="stack">
          <Button
            variant="strong"
            block
            onClick={() => {
              setSession({ status: 'loading' });
              setAttempt((n) => n + 1);
            }}
          >
            {t('common.retry')}
          </Button>
          <Button variant="flat" block to={ROUTES.signIn}>
            {t('common.backToSignIn')}
          </Button>
        </div>
      </CardLayout>
    );
  }

  const { user } = session;
  const name = fullName(user) || user.email;
  return (
    <CardLayout title={t('home.title')}>
      <div className="profile">
        <span className="avatar" aria-hidden="true">
          {name.charAt(0).toUpperCase()}
        </span>
        <div className="profile-text">
          <p className="profile-name">{t('home.signedInAs', { name })}</p>
          <p className="profile-email">{fillNodes(t('home.email'), { email: <EmailText email={user.email} /> })}</p>
        </div>
      </div>
      {signOutError === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={signOutError} />
        </Alert>
      )}
      <Button variant="outline" block loading={signingOut} onClick={() => void signOut()}>
        {signingOut ? t('home.signingOut') : t('home.signOut')}
      </Button>
      <ChangeEmailForm />
    </CardLayout>
  );
}
