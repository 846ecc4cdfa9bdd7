import type { SUPPORT_WIDGET_REGIONS } from './flags.js';

/**
 * The two third-party scripts the page may load (decision 0025): the tag manager (spec §4, §9) and
 * the customer-messaging support widget (spec §1, §9). A module of its own, outside the sign-in
 * page's first-load chunk (packages/web/vite.config.ts): the page reaches it only after its first
 * paint. The service builds the Content-Security-Policy from the same origins, so what the page
 * loads and what the policy allows cannot drift apart.
 */

/** The directives a third party may add sources to. Nothing else of the policy ever changes. */
export const CSP_GROWABLE_DIRECTIVES = ['scriptSrc', 'styleSrc', 'imgSrc', 'fontSrc', 'connectSrc', 'mediaSrc', 'formAction'] as const;
export type CspSources = Partial<Record<(typeof CSP_GROWABLE_DIRECTIVES)[number], readonly string[]>>;

// Google Tag Manager.

export const TAG_MANAGER_ORIGIN = 'https://www.googletagmanager.com';

/** A container id as Google Tag Manager shows it (`GTM-` and upper-case letters and digits). */
export const TAG_MANAGER_ID = /^GTM-[A-Z0-9]{4,12}$/;

/** The dataLayer event of spec §4's account verification. It carries nothing but its name. */
export const ACCOUNT_VERIFIED_EVENT = 'accountVerified';

/** Google's standard loader script for a container (the page adds the `dataLayer` itself). */
export function tagManagerScriptUrl(id: string): string {
  return `${TAG_MANAGER_ORIGIN}/gtm.js?id=${encodeURIComponent(id)}`;
}

/**
 * What Google's CSP guide for Tag Manager asks for: the container script, and the pixel and the
 * requests it sends home. The loader is this page's own script, so no nonce or 'unsafe-inline' is
 * needed; Custom HTML tags, which would need one, do not run (decision 0025).
 */
export const TAG_MANAGER_CSP: CspSources = {
  scriptSrc: [TAG_MANAGER_ORIGIN],
  imgSrc: [TAG_MANAGER_ORIGIN],
  connectSrc: [TAG_MANAGER_ORIGIN],
};

// The customer-messaging support widget (Intercom's Messenger).

/** Spec §1, §9: the region a widget's workspace is hosted in; its conversations stay there. */
export type SupportWidgetRegion = (typeof SUPPORT_WIDGET_REGIONS)[number];

/** The workspace's app id: it goes into the widget's script address, so letters and digits only. */
export const SUPPORT_WIDGET_APP_ID = /^[a-zA-Z0-9]{1,32}$/;

export const SUPPORT_WIDGET_SCRIPT_ORIGIN = 'https://widget.intercom.io';

export function supportWidgetScriptUrl(appId: string): string {
  return `${SUPPORT_WIDGET_SCRIPT_ORIGIN}/widget/${encodeURIComponent(appId)}`;
}

/** Hosts of one region: its API base (the widget's `api_base`) and what its policy adds. */
export interface SupportWidgetRegionHosts {
  apiBase: string;
  csp: CspSources;
}

const API_BASE: Record<SupportWidgetRegion, string> = {
  us: 'https://api-iam.intercom.io',
  eu: 'https://api-iam.eu.intercom.io',
  // Spec §1 says `ap` (Asia-Pacific): the Messenger's Australian hosting.
  ap: 'https://api-iam.au.intercom.io',
};

/** The realtime socket and the upload and image hosts of each region (Intercom's CSP guide). */
const REGIONAL: Record<SupportWidgetRegion, { socket: string[]; uploads: string[]; images: string[] }> = {
  us: {
    socket: ['nexus-websocket-a.intercom.io', 'nexus-websocket-b.intercom.io'],
    uploads: ['https://uploads.intercomcdn.com'],
    images: ['https://static.intercomassets.com', 'https://downloads.intercomcdn.com', 'https://messenger-apps.intercom.io'],
  },
  eu: {
    socket: ['nexus-europe-websocket.intercom.io'],
    uploads: ['https://uploads.eu.intercomcdn.com', 'https://uploads.intercomcdn.eu'],
    images: ['https://static.intercomassets.eu', 'https://downloads.intercomcdn.eu', 'https://messenger-apps.eu.intercom.io'],
  },
  ap: {
    socket: ['nexus-australia-websocket.intercom.io'],
    uploads: ['https://uploads.au.intercomcdn.com'],
    images: ['https://static.au.intercomassets.com', 'https://downloads.au.intercomcdn.com', 'https://messenger-apps.au.intercom.io'],
  },
};

/** The widget's script, its fonts and sounds, and the images every region shares. */
const WIDGET_CDN = 'https://js.intercomcdn.com';

/**
 * The policy the widget of one region needs, and no other region's hosts. The Messenger renders
 * its frames without a source of their own, which inherit this page's policy and are styled by
 * inline style elements: `style-src 'unsafe-inline'` comes with the widget, and only with it
 * (decision 0025). Scripts stay without 'unsafe-inline'.
 */
export function supportWidgetHosts(region: SupportWidgetRegion): SupportWidgetRegionHosts {
  const apiBase = API_BASE[region];
  const { socket, uploads, images } = REGIONAL[region];
  return {
    apiBase,
    csp: {
      scriptSrc: [SUPPORT_WIDGET_SCRIPT_ORIGIN, WIDGET_CDN],
      styleSrc: ["'unsafe-inline'"],
      imgSrc: [
        'blob:',
        WIDGET_CDN,
        'https://gifs.intercomcdn.com',
        'https://video-messages.intercomcdn.com',
        'https://uploads.intercomusercontent.com',
        ...images,
      ],
      fontSrc: [WIDGET_CDN, 'https://fonts.intercomcdn.com'],
      connectSrc: [apiBase, ...socket.flatMap((host) => [`https://${host}`, `wss://${host}`]), ...uploads, 'https://uploads.intercomusercontent.com'],
      mediaSrc: [WIDGET_CDN],
      formAction: [apiBase],
    },
  };
}
