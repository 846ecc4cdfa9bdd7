import {
  APP_ROUTES,
  DICTIONARY_ELEMENT_ID,
  ENVIRONMENTS,
  FLAG_DEFAULTS,
  RUNTIME_CONFIG_ELEMENT_ID,
  SERVER_KINDS,
  SUPPORT_WIDGET_REGIONS,
  type FlagName,
  type InlineDictionary,
  type RuntimeConfig,
} from '@foyer/contract/core';
import { createContext, useContext, type ReactNode } from 'react';

/**
 * The server writes the runtime config and the visitor's dictionary into index.html as JSON
 * script elements (decision 0006), built through the contract's RuntimeConfig and
 * InlineDictionary schemas. Every page reads them before its first paint, the sign-in page
 * included, whose first load has no room for zod, not even its light build (decision 0017: about
 * 7.5 KB gzipped for these two schemas, where the 80 KB budget leaves less than 1 KB). So they
 * are checked here by shape guards over the contract's own lists, and runtime-config.test.ts holds
 * each guard to the verdict of its schema. The guards only decide "use it or fall back".
 */

/** Used when the page is served without the config element (the Vite dev server). */
export const LOCAL_DEFAULT_CONFIG: RuntimeConfig = {
  env: 'local',
  serverUrls: {},
  flags: { ...FLAG_DEFAULTS },
  googleEnabled: false,
  defaultHome: APP_ROUTES.home,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function includes(list: readonly string[], value: unknown): boolean {
  return typeof value === 'string' && list.includes(value);
}

export function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((entry) => typeof entry === 'string');
}

export function isRuntimeConfig(value: unknown): value is RuntimeConfig {
  if (!isRecord(value)) return false;
  const {
    env,
    serverUrls,
    flags,
    reCaptchaSiteKey,
    googleEnabled,
    defaultHome,
    communityTermsUrl,
    analyticsUrl,
    cookieDomain,
    tagManagerId,
    supportWidget,
    httpTimeoutMs,
  } = value;
  const optionalText = (entry: unknown) => entry === undefined || typeof entry === 'string';
  const flagsOk = isRecord(flags) && (Object.keys(FLAG_DEFAULTS) as FlagName[]).every((name) => typeof flags[name] === typeof FLAG_DEFAULTS[name]);
  const urlsOk = isStringRecord(serverUrls) && Object.keys(serverUrls).every((kind) => includes(SERVER_KINDS, kind));
  const widgetOk =
    supportWidget === undefined ||
    (isRecord(supportWidget) && typeof supportWidget.appId === 'string' && includes(SUPPORT_WIDGET_REGIONS, supportWidget.region));
  return (
    includes(ENVIRONMENTS, env) &&
    urlsOk &&
    flagsOk &&
    optionalText(reCaptchaSiteKey) &&
    optionalText(communityTermsUrl) &&
    optionalText(analyticsUrl) &&
    optionalText(cookieDomain) &&
    optionalText(tagManagerId) &&
    widgetOk &&
    (httpTimeoutMs === undefined || (Number.isInteger(httpTimeoutMs) && (httpTimeoutMs as number) > 0)) &&
    typeof googleEnabled === 'boolean' &&
    typeof defaultHome === 'string' &&
    defaultHome !== ''
  );
}

export function isInlineDictionary(value: unknown): value is InlineDictionary {
  return isRecord(value) && typeof value.locale === 'string' && isStringRecord(value.messages);
}

function readJsonElement(doc: Document, id: string): unknown {
  const text = doc.getElementById(id)?.textContent;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function readElement<T>(doc: Document, id: string, guard: (value: unknown) => value is T): T | undefined {
  const value = readJsonElement(doc, id);
  if (value === undefined) return undefined;
  if (guard(value)) return value;
  // A present but malformed element means the server and this build disagree; say so, keep working.
  console.error(`#${id} does not hold the expected JSON; ignoring it`);
  return undefined;
}

export function readRuntimeConfig(doc: Document = document): RuntimeConfig {
  return readElement(doc, RUNTIME_CONFIG_ELEMENT_ID, isRuntimeConfig) ?? LOCAL_DEFAULT_CONFIG;
}

/** Undefined without a usable element: then every candidate language is fetched (spec §7). */
export function readInlineDictionary(doc: Document = document): InlineDictionary | undefined {
  return readElement(doc, DICTIONARY_ELEMENT_ID, isInlineDictionary);
}

const RuntimeConfigContext = createContext<RuntimeConfig | null>(null);

export function RuntimeConfigProvider({ value, children }: { value: RuntimeConfig; children: ReactNode }) {
  return <RuntimeConfigContext value={value}>{children}</RuntimeConfigContext>;
}

export function useRuntimeConfig(): RuntimeConfig {
  const config = useContext(RuntimeConfigContext);
  if (config === null) throw new Error('useRuntimeConfig needs a RuntimeConfigProvider');
  return config;
}
