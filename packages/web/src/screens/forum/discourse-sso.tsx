import { MARKETING_PATHS, ROUTES, SIGNUP_SOURCES } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { ExternalLink } from '../../components/external-link';
import { GoogleIcon } from '../../components/icons';
import { Spinner } from '../../components/spinner';
import { beforeLeaving, loggedIn, pageLoaded } from '../../lib/analytics';
import { fetchAnswer, type CallData } from '../../lib/answers';
import type { CallResult } from '../../lib/api';
import { fillNodes, useT } from '../../lib/i18n';
import { marketingUrl } from '../../lib/marketing';
import { allowedTarget, withQuery } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { removeItem, writeItem } from '../../lib/storage';
import { forumCredential } from './forum-credential';
import { FORUM_EVENT, endForumFlow, forumReturnPath } from './forum-flow';

type Stage = 'signingIn' | 'choices' | 'failed';
type Answer = CallResult<CallData<'discourseSso'>>;

/**
 * `community/discourseSso` with spec §4's credential (forum-credential.ts). A device token the
 * service no longer takes (signed out, password reset, past its lifetime) is forgotten and the
 * request goes once more with the browser's session: a 401 spends no nonce.
 */
async function forumSignIn(body: { ssoPayload: string; signature: string }): Promise<Answer> {
  const bearer = await forumCredential();
  if (bearer === undefined) return fetchAnswer('discourseSso', { body });
  const answer = await fetchAnswer('discourseSso', { body, bearer });
  if (answer.ok || answer.code !== 'notSignedIn') return answer;
  removeItem('deviceToken');
  return fetchAnswer('discourseSso', { body });
}

/**
 * Spec §2, §4, §8 `/discourse-sso`: the forum's DiscourseConnect request arrives as `sso` and
 * `sig`. The service answers for spec §4's device credential or else the browser's own session
 * (decisions 0021, 0030): terms agreed → the forum, signed in; not agreed → the terms, with
 * `from` coming back here; not signed in (401, silently) → the three choices, each of which
 * returns here through `from` after signing in or up; any other failure → the same choices under
 * the forum's error ('An error occurred. Please try again.').
 *
 * The flags (spec §3, §4): the forum-pending flag is set only for a signed-in person on the way to
 * the terms, and dropped whenever the choices show, so it can never send someone who still has
 * to sign in away from sign-in; the immediate-redirect flag marks that the person left for a
 * choice. Both end with the forum sign-in. This screen never sends anyone to sign-in by itself,
 * so no pair of screens can bounce a visitor between them.
 */
export function DiscourseSso() {
  const t = useT();
  const config = useRuntimeConfig();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const sso = params.get('sso');
  const sig = params.get('sig');
  const [stage, setStage] = useState<Stage>(sso && sig ? 'signingIn' : 'choices');
  // One request per visit, whatever the effects do: the service answers a nonce only once.
  const request = useRef<Promise<Answer> | null>(null);
  const recorded = useRef(false);

  useEffect(() => {
    if (!recorded.current) {
      recorded.current = true;
      pageLoaded(config, FORUM_EVENT);
    }
  }, [config]);

  useEffect(() => {
    const showChoices = (next: 'choices' | 'failed' = 'choices') => {
      removeItem('discoursePending');
      writeItem('doImmediateRedirect', 'true');
      setStage(next);
    };
    if (!sso || !sig) {
      showChoices();
      return;
    }
    let active = true;
    request.current ??= forumSignIn({ ssoPayload: sso, signature: sig });
    void request.current.then(async (result) => {
      if (!active) return;
      if (!result.ok) {
        // Spec §2, §8: a failed automatic sign-in offers the choices; a 401 silently, anything
        // else under the forum's one error.
        showChoices(result.code === 'notSignedIn' ? 'choices' : 'failed');
        return;
      }
      if (!result.data.termsAgreed) {
        writeItem('discoursePending', 'true');
        void navigate(withQuery(ROUTES.discourseTerms, { from: forumReturnPath(sso, sig) }), { replace: true });
        return;
      }
      // The service checked the address against the forum's origin; the page checks it again
      // against its own allow-list before the whole page goes there.
      const target = allowedTarget(result.data.redirectUrl, config);
      if (target === undefined) {
        showChoices('failed');
        return;
      }
      endForumFlow();
      loggedIn(config, FORUM_EVENT);
      await beforeLeaving(config);
      // replace: Back from the forum must not replay a spent request.
      window.location.replace(target);
    });
    return () => {
      active = false;
    };
  }, [sso, sig, config, navigate]);

  if (stage === 'signingIn') {
    return (
      <CardLayout title={t('forum.signingIn')}>
        <div className="centred">
          <Spinner title={t('forum.signingIn')} />
        </div>
      </CardLayout>
    );
  }

  const from = forumReturnPath(sso, sig);
  const carried = { from, signupSource: SIGNUP_SOURCES.community };
  // Spec §2: in production the marketing site's get-started page for the community signs people up.
  const createAccount = config.env === 'prod' ? marketingUrl(config, MARKETING_PATHS.getStartedWithCommunity, withQuery('', carried)) : undefined;

  return (
    <CardLayout title={t('forum.title')}>
      {stage === 'failed' && (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey="error.forum" />
        </Alert>
      )}
      <p className="lead">{t('forum.lead')}</p>
      <div className="stack">
        {createAccount === undefined ? (
          <Button variant="strong" block to={withQuery(ROUTES.signUp, carried)}>
            {t('forum.createAccount')}
          </Button>
        ) : (
          <Button variant="strong" block href={createAccount}>
            {t('forum.createAccount')}
          </Button>
        )}
        <Button variant="outline" block to={withQuery(ROUTES.signIn, carried)}>
          {t('forum.signInWithProduct')}
        </Button>
        <Button variant="outline" block to={withQuery(ROUTES.socialAuth, carried)} icon={<GoogleIcon />}>
          {t('signIn.withGoogle')}
        </Button>
      </div>
      <p className="notice">
        {fillNodes(t('forum.notice'), {
          privacy: <ExternalLink href={marketingUrl(config, MARKETING_PATHS.privacy)} label={t('signUp.privacy')} />,
          terms: <ExternalLink href={marketingUrl(config, MARKETING_PATHS.terms)} label={t('signUp.terms')} />,
        })}
      </p>
    </CardLayout>
  );
}
