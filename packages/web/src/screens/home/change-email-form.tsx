import { APP_ROUTES, ROUTES, type MessageKey } from '@foyer/contract/core';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { TextField } from '../../components/text-field';
import { call, globalErrorKey, handleFailure } from '../../lib/api';
import { emailError } from '../../lib/form';
import { fillNodes, useT } from '../../lib/i18n';
import { sha256Hex } from '../../lib/password-hash';
import { withQuery } from '../../lib/redirect';

/**
 * Decision 0023: the plain form of `account/changeEmail` on the signed-in page, as the product's
 * settings page would use the call. The current password is asked again (ASVS V7.5.1); the answer
 * is the same whether or not the new address has an account, so the form can only say where the
 * link went.
 */
export function ChangeEmailForm() {
  const t = useT();
  const headingId = useId();
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [judged, setJudged] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);

  const emailProblem = judged ? emailError(newEmail) : null;
  const ready = emailError(newEmail) === null && password !== '';

  async function submit() {
    const address = newEmail.trim();
    setSubmitting(true);
    setFailure(null);
    setSentTo(null);
    let hashPassword: string;
    try {
      hashPassword = await sha256Hex(password);
    } catch {
      setFailure('error.unexpected');
      setSubmitting(false);
      return;
    }
    const result = await call('changeEmail', { body: { newEmail: address, hashPassword } });
    setSubmitting(false);
    if (result.ok) {
      setSentTo(address);
      setNewEmail('');
      setPassword('');
      setJudged(false);
      return;
    }
    const key = handleFailure<MessageKey | null>(
      result.code,
      {
        invalidCredentials: () => 'home.wrongPassword',
        accountLocked: () => 'error.accountLocked',
        notSignedIn: () => {
          window.location.replace(withQuery(ROUTES.signIn, { from: APP_ROUTES.home }));
          return null;
        },
        invalidRequest: () => 'validation.emailInvalid',
      },
      globalErrorKey,
    );
    setFailure(key);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setJudged(true);
    if (ready && !submitting) void submit();
  };

  return (
    <section className="stack home-section" aria-labelledby={headingId}>
      <h2 id={headingId} className="section-title">
        {t('home.changeEmailTitle')}
      </h2>
      <p>{t('home.changeEmailIntro')}</p>
      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}
      {sentTo === null ? null : (
        <Alert variant="success" focusOnShow>
          <p>{fillNodes(t('home.changeEmailSent'), { email: <EmailText email={sentTo} /> })}</p>
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        <TextField
          label={t('home.newEmail')}
          type="email"
          name="newEmail"
          autoComplete="email"
          required
          value={newEmail}
          onValueChange={setNewEmail}
          onBlur={() => setJudged(newEmail.trim() !== '')}
          disabled={submitting}
          validity={emailProblem === null ? undefined : 'error'}
          message={emailProblem === null ? undefined : t(emailProblem)}
        />
        <TextField
          label={t('home.currentPassword')}
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onValueChange={setPassword}
          disabled={submitting}
        />
        <Button type="submit" variant="strong" block disabled={!ready} loading={submitting}>
          {submitting ? t('home.changeEmailSending') : t('home.changeEmailSubmit')}
        </Button>
      </form>
    </section>
  );
}
