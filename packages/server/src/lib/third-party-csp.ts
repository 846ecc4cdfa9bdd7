import { CSP_GROWABLE_DIRECTIVES, TAG_MANAGER_CSP, supportWidgetHosts, type CspSources } from '@foyer/contract';
import type { Config } from '../config.js';

/**
 * Decision 0025: what the configured third parties add to the Content-Security-Policy, and only
 * what is configured: the tag manager's origin with GTM_ID, the support widget's hosts of its one
 * region with SUPPORT_WIDGET_APP_ID and SUPPORT_WIDGET_REGION. Without either, nothing: the policy
 * stays this service's own. Each source appears once, in the order first given.
 */
export function thirdPartySources(config: Pick<Config, 'tagManagerId' | 'supportWidget'>): CspSources {
  const parts: CspSources[] = [];
  if (config.tagManagerId !== undefined) parts.push(TAG_MANAGER_CSP);
  if (config.supportWidget !== undefined) parts.push(supportWidgetHosts(config.supportWidget.region).csp);
  const merged: CspSources = {};
  for (const directive of CSP_GROWABLE_DIRECTIVES) {
    const sources = [...new Set(parts.flatMap((part) => part[directive] ?? []))];
    if (sources.length > 0) merged[directive] = sources;
  }
  return merged;
}
