import { ROUTES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { Spinner } from '../../components/spinner';
import { NewPasswordField } from '../../components/strength-meter/strength-meter';
import { personalInputs, usePasswordStrength } from '../../components/strength-meter/use-password-strength';
import { UsernameHint } from '../../components/username-hint';
import { fetchAnswer } from '../../lib/answers';
import { call, globalErrorKey, handleFailure, type FailureCode, type FailureHandlers } from '../../lib/api';
import { newPasswordError, useTouchedFields } from '../../lib/form';
import { fillNodes, useT } from '../../lib/i18n';
import { sha256Hex } from '../../lib/password-hash';

type Outcome = { kind: 'updated' } | { kind: 'text'; key: MessageKey } | { kind: 'deadLink' };

const text = (key: MessageKey) => (): Outcome => ({ kind: 'text', key });
const deadLink = (): Outcome => ({ kind: 'deadLink' });

/**
 * Spec §8, reset password: a previous password, and a dead link (invalid or expired, which are
 * told apart only by the server: one text, with a way to a new link). A token too long for the
 * contract fails the request's validation (invalidRequest) and is the same dead link: the token is the only
 * part of the request the visitor did not type. Everything else goes to the global fallback.
 */
const RESET_HANDLERS: FailureHandlers<Outcome> = {
  recentPassword: text('error.recentPassword'),
  invalidToken: deadLink,
  tokenExpired: deadLink,
  invalidRequest: deadLink,
};

function resetFailure(code: FailureCode): Outcome {
  return handleFailure(code, RESET_HANDLERS, (other) => ({ kind: 'text', key: globalErrorKey(other) }));
}

type LinkCheck = { status: 'checking' } | { status: 'usable'; email: string | undefined } | { status: 'dead' };

/**
 * `/reset-password/:token` (spec §2). Decision 0020: the link is checked when the page opens
 * (`account/resetPassword/check/{token}`, which spends nothing), so a dead link says so before
 * anyone chooses a password, and a live one names its account. Any other failure of the check
 * (the service unreachable) leaves the form to try: its POST says what is wrong then.
 */
export function ResetPassword() {
  const t = useT();
  const { token = '' } = useParams();
  const [check, setCheck] = useState<LinkCheck>({ status: 'checking' });

  useEffect(() => {
    const controller = new AbortController();
    void fetchAnswer('resetPasswordCheck', { params: { token }, signal: controller.signal }).then((result) => {
      if (controller.signal.aborted) return;
      if (result.ok) setCheck({ status: 'usable', email: result.data.email });
      else setCheck(resetFailure(result.code).kind === 'deadLink' ? { status: 'dead' } : { status: 'usable', email: undefined });
    });
    return () => controller.abort();
  }, [token]);

  if (check.status === 'checking') {
    return (
      <CardLayout title={t('reset.title')}>
        <div className="centred" aria-busy="true">
          <Spinner title={t('reset.checking')} />
        </div>
      </CardLayout>
    );
  }
  return check.status === 'dead' ? <ResetPasswordScreen token={token} dead /> : <ResetPasswordScreen token={token} email={check.email} />;
}

/**
 * Spec §2, §4, §5: set a new password. idle → submitting → success (field cleared, form gone) or
 * error. `email`, the account's address, comes from the link's check: the screen names the account
 * and password managers file the new password under it (UsernameHint). `dead`: the check
 * found the link dead, so the screen opens with its text and no form.
 */
export function ResetPasswordScreen({ token, email, dead = false }: { token: string; email?: string | undefined; dead?: boolean }) {
  const t = useT();
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(dead ? { kind: 'deadLink' } : null);
  const [failures, setFailures] = useState(0);
  const passwordRef = useRef<HTMLInputElement>(null);
  const outcomeId = useId();
  const fields = useTouchedFields<'password'>();

  useEffect(() => {
    // A refused password (a previous one, or a failure worth another try): the person goes on in
    // the field, its text selected to retype, described by the alert, which is also announced.
    if (failures > 0) {
      passwordRef.current?.focus();
      passwordRef.current?.select();
    }
  }, [failures]);
  // The screen knows nothing about the person but the product they are in.
  const strength = usePasswordStrength(password, personalInputs({ productName: t('product.name') }));
  const error = newPasswordError(password, strength.passes);

  async function submit() {
    if (submitting) return;
    setOutcome(null);
    if (error !== null) {
      fields.submitFailed();
      return;
    }
    setSubmitting(true);
    const verdict = await strength.check(password);
    if (verdict !== null && !verdict.passes) {
      setSubmitting(false);
      fields.submitFailed();
      return;
    }
    let hashPassword: string;
    try {
      hashPassword = await sha256Hex(password);
    } catch {
      setOutcome({ kind: 'text', key: 'error.unexpected' });
      setSubmitting(false);
      return;
    }
    const result = await call('resetPassword', { body: { token, hashPassword } });
    if (result.ok) {
      // Spec §4: the field is cleared and the success message shown.
      setPassword('');
      setOutcome({ kind: 'updated' });
    } else {
      const failure = resetFailure(result.code);
      setOutcome(failure);
      if (failure.kind === 'text') setFailures((count) => count + 1);
    }
    setSubmitting(false);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  return (
    <CardLayout title={t('reset.title')}>
      {outcome === null ? (
        <p className="lead">
          {email === undefined || email === '' ? t('reset.intro') : fillNodes(t('reset.introFor'), { email: <EmailText email={email} /> })}
        </p>
      ) : outcome.kind === 'updated' ? (
        <Alert variant="success" focusOnShow>
          <p>
            {t('reset.success')} <Link to={ROUTES.signIn}>{t('reset.signInLink')}</Link>
          </p>
        </Alert>
      ) : outcome.kind === 'deadLink' ? (
        // The form is gone (below), so focus goes to what replaced it.
        <Alert variant="error" focusOnShow>
          <p>
            {t('error.resetLinkInvalid')} <Link to={ROUTES.forgotPassword}>{t('error.resetLinkGetNew')}</Link>
          </p>
        </Alert>
      ) : (
        <Alert id={outcomeId} variant="error">
          <ErrorText messageKey={outcome.key} />
        </Alert>
      )}

      {/* Spec §4: on success the field is cleared; the form goes too, since the link is spent
          and a second 'Change Password' could only fail. A dead link takes it away as well: no
          password is chosen for a link that cannot take it. */}
      {outcome?.kind === 'updated' || outcome?.kind === 'deadLink' ? null : (
        <form className="form" onSubmit={onSubmit} noValidate>
          <UsernameHint email={email} />
          <NewPasswordField
            label={t('common.newPassword')}
            name="password"
            autoFocus
            strength={strength}
            inputRef={passwordRef}
            describedBy={outcome?.kind === 'text' ? outcomeId : undefined}
            {...fields.fieldProps('password', password, setPassword, error, submitting)}
          />
          <Button type="submit" variant="strong" block loading={submitting}>
            {submitting ? t('reset.submitting') : t('reset.submit')}
          </Button>
        </form>
      )}
    </CardLayout>
  );
}
