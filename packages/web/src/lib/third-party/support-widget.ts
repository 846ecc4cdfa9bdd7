import type { RuntimeConfig } from '@foyer/contract/core';
import { supportWidgetHosts, supportWidgetScriptUrl } from '@foyer/contract/third-party';

type SupportWidget = NonNullable<RuntimeConfig['supportWidget']>;

/** The settings the Messenger reads when its script starts. */
export interface SupportWidgetSettings {
  app_id: string;
  api_base: string;
  language_override: string;
}

/** The Messenger's standard stub: calls made before its script has arrived wait in `q`. */
interface SupportWidgetQueue {
  (...args: unknown[]): void;
  q: unknown[][];
  c: (args: unknown[]) => void;
}

declare global {
  interface Window {
    intercomSettings?: SupportWidgetSettings;
    Intercom?: SupportWidgetQueue | ((...args: unknown[]) => void);
  }
}

/**
 * The customer-messaging support widget (spec §1; decision 0025), by the Messenger's standard
 * loader: settings, the call queue, then its script from the widget host, asynchronously. It is
 * told the workspace, its region's API base (spec §9: us, eu, ap) and the page's language, and
 * nothing about the visitor: no name, email or account id, so everyone is an anonymous visitor to
 * it. Once per page.
 */
export function loadSupportWidget(widget: SupportWidget, language: string): void {
  if (window.Intercom !== undefined) return;
  window.intercomSettings = { app_id: widget.appId, api_base: supportWidgetHosts(widget.region).apiBase, language_override: language };
  const queue: SupportWidgetQueue = Object.assign((...args: unknown[]) => queue.c(args), {
    q: [] as unknown[][],
    c: (args: unknown[]) => void queue.q.push(args),
  });
  window.Intercom = queue;
  const script = document.createElement('script');
  script.async = true;
  script.src = supportWidgetScriptUrl(widget.appId);
  document.head.append(script);
}
