import { LIMITS, ROUTES } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { Spinner } from '../../components/spinner';
import { useT } from '../../lib/i18n';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { writeSessionItem } from '../../lib/session-store';
import { landingMessage, landingOutcome, shownCode } from './sso-request';

/**
 * Spec §2, §4, §8 `/sso-landing`, where every answer of an identity provider ends (decision
 * 0022): with a code, the failure page (spec §8's text and the raw code); with a transfer token,
 * the success page, which after spec §9's second opens the desktop app's transfer address
 * (native client) or an app-scheme return address, or signs this browser in at
 * `/ssol/:transferToken`, which then goes to a web return address.
 */
export function SsoLanding() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const [outcome] = useState(() => landingOutcome(params, config));

  useEffect(() => {
    if (outcome.kind !== 'success') return;
    const timer = window.setTimeout(() => {
      // A web return address waits in the tab for `/ssol/:transferToken`, as sign-in's `from` does.
      if (outcome.from !== undefined) writeSessionItem('ssoFrom', outcome.from);
      // The app opens beside this page, which stays with its link; a web target replaces the
      // landing page in the history, so Back does not offer a spent token again.
      if (outcome.native) window.location.assign(outcome.target);
      else window.location.replace(outcome.target);
    }, LIMITS.ssoLandingDelayMs);
    return () => window.clearTimeout(timer);
  }, [outcome]);

  if (outcome.kind === 'failure') {
    const code = shownCode(outcome.code);
    return (
      <CardLayout title={t('ssoLanding.errorTitle')}>
        {/* The page opens on the failure, so focus starts where a screen reader reads it. */}
        <Alert variant="error" focusOnShow>
          <p>{t(landingMessage(outcome.code))}</p>
          {code === null ? null : <p>{t('ssoLanding.code', { code })}</p>}
        </Alert>
        <div className="stack">
          <Button variant="strong" block to={ROUTES.ssoSignIn}>
            {t('signIn.withSso')}
          </Button>
          <Button variant="flat" block to={ROUTES.signIn}>
            {t('common.backToSignIn')}
          </Button>
        </div>
      </CardLayout>
    );
  }

  return (
    <CardLayout title={t('ssoLanding.successTitle')}>
      <Alert variant="success">
        <p>{t('ssoLanding.successBody')}</p>
      </Alert>
      {outcome.native ? (
        // For a browser that asks before opening an app, or a person who dismissed it.
        <Button variant="strong" block href={outcome.target} target="_self">
          {t('social.openApp')}
        </Button>
      ) : (
        <div className="centred">
          <Spinner decorative />
        </div>
      )}
    </CardLayout>
  );
}
