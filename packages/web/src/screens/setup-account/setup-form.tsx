import type { MessageKey } from '@foyer/contract/core';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { EmailText } from '../../components/email-text';
import { ErrorText } from '../../components/error-text';
import { NewPasswordField } from '../../components/strength-meter/strength-meter';
import { personalInputs, usePasswordStrength } from '../../components/strength-meter/use-password-strength';
import { TextField } from '../../components/text-field';
import { UsernameHint } from '../../components/username-hint';
import { FIELD_MAX_LENGTH, firstNameError, lastNameError, newPasswordError, useTouchedFields } from '../../lib/form';
import { fillNodes, useT } from '../../lib/i18n';
import { sha256Hex } from '../../lib/password-hash';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { completeSetup, type SetupAnswers, type SetupFailure, type SetupField } from './setup-request';

type CheckedField = 'firstName' | 'lastName' | 'password';

/**
 * Spec §2, §5: the missing fields, and only those, validated with the spec's messages (the phone
 * is optional), then 'Complete Setup'. The first of them has focus. `email`, the account's
 * address, comes with the fields lookup (decision 0020): the screen shows whose account it sets
 * up (and, for an invitation, the `organization`'s name), and password managers file the new
 * password under it (UsernameHint).
 */
export function SetupForm({
  token,
  asked,
  onDeadLink,
  email,
  organization,
}: {
  token: string;
  asked: readonly SetupField[];
  onDeadLink: (failure: SetupFailure) => void;
  email?: string | undefined;
  organization?: string | undefined;
}) {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const [values, setValues] = useState({ firstName: '', lastName: '', password: '', phone: '' });
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const fields = useTouchedFields<CheckedField>();
  const strength = usePasswordStrength(values.password, personalInputs({ names: [values.firstName, values.lastName], productName: t('product.name') }));

  const asks = (field: SetupField) => asked.includes(field);
  // In the order the form shows them.
  const first = (['firstName', 'lastName', 'hashPassword', 'phoneNumber'] as const).find(asks);
  const errors: Record<CheckedField, MessageKey | null> = {
    firstName: asks('firstName') ? firstNameError(values.firstName) : null,
    lastName: asks('lastName') ? lastNameError(values.lastName) : null,
    password: asks('hashPassword') ? newPasswordError(values.password, strength.passes) : null,
  };
  const set = (field: keyof typeof values) => (value: string) => setValues((current) => ({ ...current, [field]: value }));
  const checked = (field: CheckedField) => fields.fieldProps(field, values[field], set(field), errors[field], submitting);

  async function answers(): Promise<SetupAnswers | 'weak' | 'failed'> {
    const out: SetupAnswers = {};
    if (asks('firstName')) out.firstName = values.firstName.trim();
    if (asks('lastName')) out.lastName = values.lastName.trim();
    const phone = values.phone.trim();
    if (asks('phoneNumber') && phone !== '') out.phoneNumber = phone;
    if (asks('hashPassword')) {
      // As at sign-up: if the estimator cannot load at all, the length rule alone decides.
      const verdict = await strength.check(values.password);
      if (verdict !== null && !verdict.passes) return 'weak';
      try {
        out.hashPassword = await sha256Hex(values.password);
      } catch {
        return 'failed';
      }
    }
    return out;
  }

  async function submit() {
    if (submitting) return;
    setFailure(null);
    if (Object.values(errors).some((error) => error !== null)) {
      fields.submitFailed();
      return;
    }
    setSubmitting(true);
    const ready = await answers();
    if (ready === 'weak' || ready === 'failed') {
      if (ready === 'weak') fields.submitFailed();
      else setFailure('error.setupUnknown');
      setSubmitting(false);
      return;
    }
    const outcome = await completeSetup(token, ready, params, config);
    if (outcome === null) return; // leaving for the next page, spinner still on
    if (outcome.deadLink) {
      onDeadLink(outcome);
      return;
    }
    setFailure(outcome.key);
    setSubmitting(false);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  const nameFields = [
    asks('firstName') ? (
      <TextField
        key="firstName"
        label={t('common.firstName')}
        name="firstName"
        autoComplete="given-name"
        autoFocus={first === 'firstName'}
        maxLength={FIELD_MAX_LENGTH.name}
        {...checked('firstName')}
      />
    ) : null,
    asks('lastName') ? (
      <TextField
        key="lastName"
        label={t('common.lastName')}
        name="lastName"
        autoComplete="family-name"
        autoFocus={first === 'lastName'}
        maxLength={FIELD_MAX_LENGTH.name}
        {...checked('lastName')}
      />
    ) : null,
  ].filter((field) => field !== null);

  return (
    <CardLayout title={t('setup.title')}>
      <p className="lead">{t('setup.intro')}</p>
      {email === undefined ? null : (
        <p className="account-line">
          {fillNodes(t(organization === undefined ? 'setup.account' : 'setup.accountInOrg'), {
            email: (
              <strong>
                <EmailText email={email} />
              </strong>
            ),
            organization: <strong>{organization}</strong>,
          })}
        </p>
      )}
      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        {nameFields.length === 2 ? <div className="field-row">{nameFields}</div> : nameFields}
        {asks('hashPassword') ? (
          <>
            <UsernameHint email={email} />
            <NewPasswordField
              label={t('common.password')}
              name="password"
              autoFocus={first === 'hashPassword'}
              strength={strength}
              {...checked('password')}
            />
          </>
        ) : null}
        {asks('phoneNumber') ? (
          <TextField
            label={t('common.phoneOptional')}
            type="tel"
            name="phone"
            autoComplete="tel"
            autoFocus={first === 'phoneNumber'}
            maxLength={FIELD_MAX_LENGTH.phone}
            value={values.phone}
            onValueChange={set('phone')}
            disabled={submitting}
          />
        ) : null}
        <Button type="submit" variant="strong" block loading={submitting}>
          {submitting ? t('setup.submitting') : t('setup.submit')}
        </Button>
      </form>
    </CardLayout>
  );
}
