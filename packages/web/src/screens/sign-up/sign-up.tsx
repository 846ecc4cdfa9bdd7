import { MARKETING_PATHS, SIGNUP_SOURCES } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { PageSpinner } from '../../components/card-layout';
import { marketingUrl } from '../../lib/marketing';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { useSignedInBounce } from '../../lib/signed-in';
import { readItem, removeItem } from '../../lib/storage';
import { flagParam } from '../social-auth/social-auth-request';
import { CheckEmail } from './check-email';
import { SignUpForm, type SignedUp } from './sign-up-form';

/** The chrome extension's flag, then a forum sign-up, choose their own get-started page. */
function getStartedPath(params: URLSearchParams): string {
  if (flagParam(params, 'chrome')) return MARKETING_PATHS.getStartedWithChrome;
  if (params.get('signupSource') === SIGNUP_SOURCES.community) return MARKETING_PATHS.getStartedWithCommunity;
  return MARKETING_PATHS.getStarted;
}

/** `/sign-up`: in production the marketing site's get-started page does sign-up (spec §2). */
export function SignUp() {
  return <SignUpScreen marketingInProduction />;
}

/** `/sign-up-old`: the same screen, which never redirects (spec §2). */
export function SignUpOld() {
  return <SignUpScreen marketingInProduction={false} />;
}

/**
 * Spec §2, §4: sign-up. form → submitting → a server-given address, or 'Check Your Email';
 * 'Start over' there brings back an empty form.
 */
function SignUpScreen({ marketingInProduction }: { marketingInProduction: boolean }) {
  const config = useRuntimeConfig();
  const { search } = useLocation();
  const [params] = useSearchParams();
  // Spec §4: while a forum sign-in is pending, sign-up bounces to the default home page.
  const [pending] = useState(() => readItem('discoursePending') !== null);
  // Someone already signed in goes on instead, before any trip to the marketing site.
  const session = useSignedInBounce(params.get('from'), config, !pending);
  // Decided once, when the screen opens.
  const [leaveFor] = useState(() => {
    if (pending) return config.defaultHome;
    // The query (plan, attribution, signupSource) goes along to the marketing site, to the
    // get-started place for where the person came from (spec §2's marketing-site places).
    if (marketingInProduction && config.env === 'prod') return marketingUrl(config, getStartedPath(params), search);
    return undefined;
  });
  const [signedUp, setSignedUp] = useState<SignedUp | null>(null);

  useEffect(() => {
    if (leaveFor === undefined || session !== 'signedOut') return;
    // Once per flag, as on sign-in: a stale forum-pending flag must not bounce forever.
    if (pending) removeItem('discoursePending');
    window.location.replace(leaveFor);
  }, [leaveFor, session, pending]);

  if (session === 'checking') return <PageSpinner delayed />;
  if (leaveFor !== undefined) return <PageSpinner />;
  if (signedUp !== null) return <CheckEmail {...signedUp} onStartOver={() => setSignedUp(null)} />;
  return <SignUpForm onSignedUp={setSignedUp} />;
}
