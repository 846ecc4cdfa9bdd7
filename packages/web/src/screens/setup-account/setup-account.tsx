import { ROUTES, normalizeEmail } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ConfirmSignIn } from '../../components/confirm-sign-in';
import { ErrorText } from '../../components/error-text';
import { Spinner } from '../../components/spinner';
import { fetchAnswer } from '../../lib/answers';
import { signedInEmail } from '../../lib/signed-in';
import { useT } from '../../lib/i18n';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { AlreadyVerified, SupersededLink } from './ended-link';
import { SetupForm } from './setup-form';
import { completeSetup, setupFailure, type SetupFailure, type SetupField } from './setup-request';

type SetupState =
  | { status: 'loading' }
  | { status: 'finishing' }
  | { status: 'confirm'; email: string }
  | { status: 'form'; asked: SetupField[]; email: string; organization: string | undefined }
  | { status: 'failed'; failure: SetupFailure };

/**
 * Spec §2, §4: `/verify-email/:token` and `/setup-account/:token`, 'Complete Account Setup'. On
 * load the server says which fields are missing (skeleton placeholders meanwhile). Nothing
 * missing, or only the optional phone: it submits at once. Otherwise the form asks for exactly
 * those fields, naming the account (and for an invitation the organisation) it sets up. A dead
 * link replaces everything with its text and the way back to sign-in; a verification link used
 * already or replaced by a newer one says so and offers sign-in or another link (decision 0020).
 */
export function SetupAccount() {
  const t = useT();
  const config = useRuntimeConfig();
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const [state, setState] = useState<SetupState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    // Back to this page from where setup led (it is kept in the back-forward cache as it was
    // left, spinner and all): ask about the link again, which now says what it is (decision 0020).
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setState({ status: 'loading' });
      setAttempt((count) => count + 1);
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    void (async () => {
      const result = await fetchAnswer('setupAccountFields', { params: { id: token }, signal });
      if (signal.aborted) return;
      if (!result.ok) {
        setState({ status: 'failed', failure: setupFailure(result.code) });
        return;
      }
      const { fields: asked, email, organization } = result.data;
      if (asked.some((field) => field !== 'phoneNumber')) {
        setState({ status: 'form', asked, email, organization });
        return;
      }
      // The link signs this browser in. Someone else's session here is not replaced unasked: a
      // link anyone can send (their own sign-up's) would otherwise move this browser into their
      // account (login CSRF, decision 0020).
      const holder = await signedInEmail(signal);
      if (signal.aborted) return;
      if (holder !== undefined && normalizeEmail(holder) !== normalizeEmail(email)) {
        setState({ status: 'confirm', email });
        return;
      }
      setState({ status: 'finishing' });
      // On success the browser is leaving: the spinner stays until it has.
      const failure = await completeSetup(token, {}, params, config, signal);
      if (!signal.aborted && failure !== null) setState({ status: 'failed', failure });
    })();
    return () => controller.abort();
  }, [token, params, config, attempt]);

  const title = t('setup.title');

  if (state.status === 'loading') return <SetupSkeleton title={title} />;

  if (state.status === 'confirm') {
    const onContinue = async () => {
      const failure = await completeSetup(token, {}, params, config);
      if (failure !== null) setState({ status: 'failed', failure });
    };
    return <ConfirmSignIn title={title} email={state.email} onContinue={onContinue} />;
  }

  if (state.status === 'finishing') {
    return (
      <CardLayout title={title}>
        <div className="centred">
          <Spinner title={t('setup.finishing')} />
        </div>
      </CardLayout>
    );
  }

  if (state.status === 'failed') {
    const { failure } = state;
    if (failure.way === 'signIn') return <AlreadyVerified title={title} />;
    if (failure.way === 'sendAnother') return <SupersededLink title={title} token={token} />;
    return (
      <CardLayout title={title}>
        {/* It may replace a form the person was in: focus goes to it rather than the page body. */}
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure.key} />
        </Alert>
        <div className="stack">
          {failure.deadLink ? null : (
            <Button
              variant="strong"
              block
              onClick={() => {
                setState({ status: 'loading' });
                setAttempt((count) => count + 1);
              }}
            >
              {t('common.retry')}
            </Button>
          )}
          <Button variant={failure.deadLink ? 'strong' : 'flat'} block to={ROUTES.signIn}>
            {t('common.backToSignIn')}
          </Button>
        </div>
      </CardLayout>
    );
  }

  return (
    <SetupForm
      token={token}
      asked={state.asked}
      email={state.email}
      organization={state.organization}
      onDeadLink={(failure) => setState({ status: 'failed', failure })}
    />
  );
}

/**
 * Placeholders in the shape of the form while the fields are looked up. The region says it is
 * busy, the shapes are hidden from assistive technology, and a visually hidden text says what
 * is happening.
 */
function SetupSkeleton({ title }: { title: string }) {
  const t = useT();
  return (
    <CardLayout title={title}>
      <div className="form" aria-busy="true">
        <p role="status" className="visually-hidden">
          {t('setup.loading')}
        </p>
        <div className="skeleton-stack" aria-hidden="true">
          <span className="skeleton skeleton-text" />
          {[0, 1, 2].map((field) => (
            <span key={field} className="skeleton-field">
              <span className="skeleton skeleton-label" />
              <span className="skeleton skeleton-input" />
            </span>
          ))}
          <span className="skeleton skeleton-button" />
        </div>
      </div>
    </CardLayout>
  );
}
