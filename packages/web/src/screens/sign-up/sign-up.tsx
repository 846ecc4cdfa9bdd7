import { MARKETING_PATHS } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { PageSpinner } from '../../components/card-layout';
import { marketingUrl } from '../../lib/marketing';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { readItem } from '../../lib/storage';
import { CheckEmail } from './check-email';
import { SignUpForm, type SignedUp } from './sign-up-form';

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
  // Decided once, when the screen opens.
  const [leaveFor] = useState(() => {
    // Spec §4: while a forum sign-in is pending, sign-up bounces to the default home page.
    if (readItem('discoursePending') !== null) return config.defaultHome;
    // The query (plan, attribution, signupSource) goes along to the marketing site.
    if (marketingInProduction && config.env === 'prod') return marketingUrl(config, MARKETING_PATHS.getStarted, search);
    return undefined;
  });
  const [signedUp, setSignedUp] = useState<SignedUp | null>(null);

  useEffect(() => {
    if (leaveFor !== undefined) window.location.replace(leaveFor);
  }, [leaveFor]);

  if (leaveFor !== undefined) return <PageSpinner />;
  if (signedUp !== null) return <CheckEmail {...signedUp} onStartOver={() => setSignedUp(null)} />;
  return <SignUpForm onSignedUp={setSignedUp} />;
}
