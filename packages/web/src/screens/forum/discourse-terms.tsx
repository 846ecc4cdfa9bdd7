import { FORUM_ANALYTICS } from '@foyer/contract/community';
import { LIMITS, type MessageKey } from '@foyer/contract/core';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { ErrorText } from '../../components/error-text';
import { beforeLeaving, pageLoaded, track } from '../../lib/analytics';
import { call } from '../../lib/api';
import { useT } from '../../lib/i18n';
import { allowedTarget } from '../../lib/redirect';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { removeItem } from '../../lib/storage';
import { storedDeviceToken } from './forum-credential';
import { FORUM_EVENT, communitySite, endForumFlow } from './forum-flow';

/**
 * Spec §2, §4 `/discourse-terms`: the community terms in a frame 400 px high, the box to tick,
 * Cancel and Accept. Accept waits for both the frame and the box, records the agreement
 * (`community/termsAgreed`) and goes back to `from`, the forum request (`/discourse-sso?…`),
 * which now goes through. Cancel ends the forum sign-in and goes to the community site.
 */
export function DiscourseTerms() {
  const t = useT();
  const config = useRuntimeConfig();
  const [params] = useSearchParams();
  const from = params.get('from');
  const termsUrl = config.communityTermsUrl;
  const [loaded, setLoaded] = useState(false);
  const [ticked, setTicked] = useState(false);
  const [frameFocused, setFrameFocused] = useState(false);
  const frameRef = useRef<HTMLIFrameElement>(null);

  // Chromium matches no :focus on a frame that has the focus and sends its element no focus event;
  // this page's window loses the focus to it instead. The ring is then drawn by state (styles.css).
  useEffect(() => {
    const update = () => setTimeout(() => setFrameFocused(frameRef.current !== null && document.activeElement === frameRef.current));
    window.addEventListener('blur', update);
    window.addEventListener('focus', update);
    return () => {
      window.removeEventListener('blur', update);
      window.removeEventListener('focus', update);
    };
  }, []);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<MessageKey | null>(termsUrl === undefined ? 'error.forum' : null);
  const recorded = useRef(false);

  useEffect(() => {
    if (recorded.current) return;
    recorded.current = true;
    pageLoaded(config, FORUM_EVENT);
  }, [config]);

  async function accept() {
    if (!loaded || !ticked || submitting) return;
    setSubmitting(true);
    setFailure(null);
    // Spec §7: the same credential as the sign-in call that sent the person here.
    const bearer = storedDeviceToken();
    const result = await call('termsAgreed', bearer === undefined ? { body: {} } : { body: {}, bearer });
    if (!result.ok) {
      // Signed out meanwhile: the pending flag would otherwise bounce the coming sign-in home.
      if (result.code === 'notSignedIn') removeItem('discoursePending');
      setFailure('error.forum');
      setSubmitting(false);
      return;
    }
    track(config, FORUM_ANALYTICS.events.termsAgreed, FORUM_EVENT);
    await beforeLeaving(config);
    // Without a usable `from` there is no request to finish: the forum itself starts a new one.
    window.location.replace(allowedTarget(from, config) ?? communitySite(config));
  }

  async function cancel() {
    endForumFlow();
    track(config, FORUM_ANALYTICS.events.termsCancelled, FORUM_EVENT);
    await beforeLeaving(config);
    window.location.assign(communitySite(config));
  }

  return (
    <CardLayout title={t('forum.termsTitle')}>
      {failure === null ? null : (
        <Alert variant="error" focusOnShow>
          <ErrorText messageKey={failure} />
        </Alert>
      )}
      {termsUrl === undefined ? null : (
        <iframe
          className="terms-frame"
          src={termsUrl}
          title={t('forum.termsFrame')}
          height={LIMITS.termsIframeHeightPx}
          // The forum renders its terms with script (Discourse is a script app) from its own
          // origin; the sandbox still takes away forms, top navigation and anything but opening
          // its links in a new tab. Same origin only in `local`, where the page has no script.
          sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"
          referrerPolicy="no-referrer"
          onLoad={() => setLoaded(true)}
          ref={frameRef}
          data-focused={frameFocused || undefined}
        />
      )}
      <label className="checkbox">
        <input type="checkbox" checked={ticked} onChange={(event) => setTicked(event.target.checked)} disabled={submitting} />
        <span>{t('forum.termsCheckbox')}</span>
      </label>
      <div className="button-row">
        <Button variant="flat" onClick={() => void cancel()} disabled={submitting}>
          {t('common.cancel')}
        </Button>
        <Button variant="strong" onClick={() => void accept()} disabled={!loaded || !ticked} loading={submitting}>
          {t('common.accept')}
        </Button>
      </div>
    </CardLayout>
  );
}
