import { FORUM_ANALYTICS } from '@foyer/contract/community';
import { ROUTES, serverUrl, type RuntimeConfig } from '@foyer/contract/core';
import type { EventProperties } from '../../lib/analytics';
import { withQuery } from '../../lib/redirect';
import { removeItem } from '../../lib/storage';

/** Spec §3: the forum's analytics events carry category Discourse and object Community SSO. */
export const FORUM_EVENT: EventProperties = FORUM_ANALYTICS.properties;

/** Spec §2: the return path every choice carries as `from`: `/discourse-sso?sso=..&sig=..`. */
export function forumReturnPath(sso: string | null, sig: string | null): string {
  return withQuery(ROUTES.discourseSso, { sso, sig });
}

/** The community site itself (Cancel's destination); the default home if the environment has no forum. */
export function communitySite(config: RuntimeConfig): string {
  return serverUrl(config.serverUrls, 'community') ?? config.defaultHome;
}

/**
 * The forum sign-in is over (the forum reached, or the terms cancelled): neither flag may outlive
 * it, or a later visit to sign-in would bounce home for no reason (spec §4, decision 0021).
 */
export function endForumFlow(): void {
  removeItem('discoursePending');
  removeItem('doImmediateRedirect');
}
