import type { RuntimeConfig } from '@foyer/contract/core';
import { loadSupportWidget } from './support-widget';
import { loadTagManager } from './tag-manager';

/**
 * What the page loads after its first paint (decision 0025): each configured third party, and
 * nothing that is not configured. The widget speaks the page's language (`<html lang>`, which
 * the service sets to the dictionary it served).
 */
export function loadThirdParties(config: RuntimeConfig): void {
  if (config.tagManagerId !== undefined) loadTagManager(config.tagManagerId);
  if (config.supportWidget !== undefined) loadSupportWidget(config.supportWidget, document.documentElement.lang || 'en');
}
