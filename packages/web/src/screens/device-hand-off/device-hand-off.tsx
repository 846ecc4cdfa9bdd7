import { COOKIE_BASE_NAMES, RANDOM_ID_PATTERN, ROUTES } from '@foyer/contract/core';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ConfirmSignIn } from '../../components/confirm-sign-in';
import { Spinner } from '../../components/spinner';
import { call, type CallResult } from '../../lib/api';
import { fetchAnswer, type CallData } from '../../lib/answers';
import { writeCookie } from '../../lib/cookies';
import { useT } from '../../lib/i18n';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { writeItem } from '../../lib/storage';

/** Spec §3: the device id cookie lives as long as a device token (decision 0021: a year). */
const DEVICE_COOKIE_SECONDS = 365 * 24 * 60 * 60;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

/** The query as the page was opened with it, read once: the address is wiped right after. */
function handOffQuery(): { deviceId: string | null; otter: string | null } {
  const query = new URLSearchParams(window.location.search);
  return { deviceId: query.get('deviceId'), otter: query.get('otter') };
}

/** What the screen shows: the check, the question, the exchange, or why it cannot go on. */
type Step = { kind: 'checking' } | { kind: 'confirm'; email: string } | { kind: 'failed' };

/**
 * Spec §2's device hand-off screen (`/device-hand-off`, decision 0021): a native client opens it
 * with its `deviceId` and a one-time `otter` to carry its account into this browser. The `otter`
 * here is a transfer token (decision 0019: two minutes, single use), never a session token: the
 * address is replaced at once so the token leaves the address bar and the history. The screen
 * names the account the token signs in to (`account/exchangeSSOTransferToken/check`, which spends
 * nothing) and exchanges it (`account/exchangeSSOTransferToken`) only when the person continues:
 * a link anyone can send must not sign a browser in to the sender's account unasked. The session
 * is the service's HttpOnly `otter` cookie (spec §3); the device id goes into its cookie and into
 * local storage, so this browser's calls carry the device the session is bound to. Then the fixed
 * address: the product's home (the app site once deployed).
 */
export function DeviceHandOff() {
  const t = useT();
  const config = useRuntimeConfig();
  const [{ deviceId, otter }] = useState(handOffQuery);
  const usable = deviceId !== null && otter !== null && RANDOM_ID_PATTERN.test(deviceId) && TOKEN_PATTERN.test(otter);
  const [step, setStep] = useState<Step>(usable ? { kind: 'checking' } : { kind: 'failed' });
  // One check per visit, whatever the effects do (StrictMode runs them twice).
  const check = useRef<Promise<CallResult<CallData<'exchangeSSOTransferTokenCheck'>>> | null>(null);

  useLayoutEffect(() => {
    // A token in an address outlives its use in history, logs and screenshots; it goes first,
    // before the screen is first painted.
    window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);

  useEffect(() => {
    if (!usable) return;
    let active = true;
    check.current ??= fetchAnswer('exchangeSSOTransferTokenCheck', { body: { token: otter } });
    void check.current.then((result) => {
      if (!active) return;
      setStep(result.ok ? { kind: 'confirm', email: result.data.email } : { kind: 'failed' });
    });
    return () => {
      active = false;
    };
  }, [otter, usable]);

  async function handOff() {
    if (!usable) return;
    const result = await call('exchangeSSOTransferToken', { body: { token: otter, deviceId } });
    if (!result.ok) {
      // Nothing changes for this browser: whoever is signed in here stays signed in, on its own device id.
      setStep({ kind: 'failed' });
      return;
    }
    // The session is the app's device's from now on: the browser keeps that device id only now.
    writeItem('deviceId', deviceId);
    writeCookie(config, COOKIE_BASE_NAMES.deviceId, deviceId, DEVICE_COOKIE_SECONDS);
    window.location.replace(config.defaultHome);
  }

  if (step.kind === 'failed') {
    return (
      <CardLayout title={t('handOff.title')}>
        <Alert variant="error" focusOnShow>
          <p>{t('handOff.failed')}</p>
        </Alert>
        <Button variant="strong" block to={ROUTES.signIn}>
          {t('common.backToSignIn')}
        </Button>
      </CardLayout>
    );
  }

  if (step.kind !== 'checking') {
    return <ConfirmSignIn title={t('handOff.title')} email={step.email} onContinue={handOff} />;
  }

  return (
    <CardLayout title={t('handOff.title')}>
      <div className="centred">
        <Spinner title={t('handOff.title')} />
      </div>
    </CardLayout>
  );
}
