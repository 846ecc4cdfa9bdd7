import { MARKETING_PATHS, ROUTES, SIGNUP_SOURCES, type MessageKey } from '@foyer/contract/core';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { ExternalLink } from '../../components/external-link';
import { GoogleIcon } from '../../components/icons';
import { NewPasswordField } from '../../components/strength-meter/strength-meter';
import { personalInputs, usePasswordStrength } from '../../components/strength-meter/use-password-strength';
import { TextField } from '../../components/text-field';
import { ThirdPartyScripts } from '../../components/third-party-scripts';
import { fetchAnswer } from '../../lib/answers';
import { botCheckToken, preloadBotCheck } from '../../lib/bot-check';
import { emailError, FIELD_MAX_LENGTH, firstNameError, lastNameError, newPasswordError, useTouchedFields } from '../../lib/form';
import { fillNodes, useT } from '../../lib/i18n';
import { marketingUrl } from '../../lib/marketing';
import { sha256Hex } from '../../lib/password-hash';
import { allowedTarget, withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { signUpBody, signUpFailure, type SignUpValues } from './sign-up-request';

export interface SignedUp {
  email: string;
  userId: string;
}

type CheckedField = 'firstName' | 'lastName' | 'email' | 'password';

const EMPTY: SignUpValues = { firstName: '', lastName: '', email: '', password: '', phone: '' };

/** Spec §2, §5, §7, §8: the sign-up form. */
export function SignUpForm({ onSignedUp }: { onSignedUp: (signedUp: SignedUp) => void }) {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const [values, setValues] = useState(EMPTY);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(null);
  const [failures, setFailures] = useState(0);
  const emailRef = useRef<HTMLInputElement>(null);
  const failureId = useId();
  const fields = useTouchedFields<CheckedField>();
  const strength = usePasswordStrength(
    values.password,
    personalInputs({ names: [values.firstName, values.lastName], email: values.email, productName: t('product.name') }),
  );

  useEffect(() => preloadBotCheck(config.reCaptchaSiteKey), [config.reCaptchaSiteKey]);

  useEffect(() => {
    // The service's refusals are about the address (ssoRequired) or ask for another try: the
    // person goes on in the email field, described by the alert, which is also announced.
    if (failures > 0) emailRef.current?.focus();
  }, [failures]);

  const errors: Record<CheckedField, MessageKey | null> = {
    firstName: firstNameError(values.firstName),
    lastName: lastNameError(values.lastName),
    email: emailError(values.email),
    password: newPasswordError(values.password, strength.passes),
  };

  const set = (field: keyof SignUpValues) => (value: string) => setValues((current) => ({ ...current, [field]: value }));
  const checked = (field: CheckedField) => fields.fieldProps(field, values[field], set(field), errors[field], submitting);

  async function submit() {
    if (submitting) return;
    setFailure(null);
    if (Object.values(errors).some((error) => error !== null)) {
      fields.submitFailed();
      return;
    }
    setSubmitting(true);
    // The estimate for exactly what was typed; if the estimator cannot load at all, the length
    // rule alone decides rather than blocking sign-up (the check is the browser's only).
    const verdict = await strength.check(values.password);
    if (verdict !== null && !verdict.passes) {
      setSubmitting(false);
      fields.submitFailed();
      return;
    }
    let hashPassword: string;
    try {
      hashPassword = await sha256Hex(values.password);
    } catch {
      setFailure('error.unexpected');
      setSubmitting(false);
      setFailures((count) => count + 1);
      return;
    }
    const reCaptchaToken = await botCheckToken(config.reCaptchaSiteKey, 'signup');
    const body = signUpBody(values, { hashPassword, reCaptchaToken }, params, config);
    const result = await fetchAnswer('signup', { body });
    if (result.ok) {
      // Spec §4: a server-given address (checked against the allow-list), else 'Check Your Email'.
      const next = allowedTarget(result.data.redirectUrl, config);
      if (next !== undefined) window.location.assign(next);
      else onSignedUp({ email: body.email, userId: result.data.userId });
      return;
    }
    setFailure(signUpFailure(result.code));
    setSubmitting(false);
    setFailures((count) => count + 1);
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  // Google keeps the whole query (plan, attribution, from), with its own sign-up source.
  const googleQuery = new URLSearchParams(params);
  googleQuery.set('signupSource', SIGNUP_SOURCES.google);
  const from = params.get('from');

  return (
    <CardLayout
      title={t('signUp.title')}
      footer={
        <p>
          {t('signUp.haveAccount')} <Link to={withQuery(ROUTES.signIn, { from })}>{t('signUp.signInLink')}</Link>
        </p>
      }
    >
      {failure === null ? null : (
        <Alert id={failureId} variant="error">
          <ErrorText messageKey={failure} />
        </Alert>
      )}

      {/* noValidate: the spec §5 messages are shown in place of the browser's own. */}
      <form className="form" onSubmit={onSubmit} noValidate>
        <div className="field-row">
          <TextField
            label={t('common.firstName')}
            name="firstName"
            autoComplete="given-name"
            autoFocus
            maxLength={FIELD_MAX_LENGTH.name}
            {...checked('firstName')}
          />
          <TextField label={t('common.lastName')} name="lastName" autoComplete="family-name" maxLength={FIELD_MAX_LENGTH.name} {...checked('lastName')} />
        </div>
        <TextField
          label={t('common.workEmail')}
          type="email"
          name="email"
          autoComplete="email"
          inputRef={emailRef}
          describedBy={failure === null ? undefined : failureId}
          {...checked('email')}
        />
        <NewPasswordField label={t('common.password')} name="password" strength={strength} {...checked('password')} />
        <TextField
          label={t('common.phoneOptional')}
          type="tel"
          name="phone"
          autoComplete="tel"
          maxLength={FIELD_MAX_LENGTH.phone}
          value={values.phone}
          onValueChange={set('phone')}
          disabled={submitting}
        />
        <Button type="submit" variant="strong" block loading={submitting}>
          {submitting ? t('signUp.submitting') : t('signUp.submit')}
        </Button>
      </form>
      {/* Decision 0025: the tag manager and the support widget, once this form is on screen. */}
      <ThirdPartyScripts />

      <div className="divider">
        <span>{t('common.or')}</span>
      </div>

      <Button variant="outline" block to={`${ROUTES.socialAuth}?${googleQuery.toString()}`} icon={<GoogleIcon />}>
        {t('signUp.withGoogle')}
      </Button>

      <p className="notice">
        {fillNodes(t('signUp.notice'), {
          terms: <ExternalLink href={marketingUrl(config, MARKETING_PATHS.terms)} label={t('signUp.terms')} />,
          privacy: <ExternalLink href={marketingUrl(config, MARKETING_PATHS.privacy)} label={t('signUp.privacy')} />,
        })}
      </p>
    </CardLayout>
  );
}
