import { createRequire } from 'node:module';
import { DEFAULT_LOCALE, candidateLocales, fillPlaceholders, isSupportedLocale, parseAcceptLanguage, type Locale } from '@foyer/contract';
// Type-only imports: they give the keys their type and make tsc copy the files into dist.
import type de from './lang/de.json';
import type en from './lang/en.json';
import type es from './lang/es.json';
import type fr from './lang/fr.json';

/** The product's name in every message (spec §1 names the product only by kind). */
export const PRODUCT_NAME = 'Foyer';

export type MailKey = keyof typeof en;
type MailDictionary = Record<MailKey, string>;

// Each file must have every English key: a missing one fails the type check here.
const require = createRequire(import.meta.url);
const DICTIONARIES: Record<Locale, MailDictionary> = {
  en: require('./lang/en.json') as typeof en,
  de: require('./lang/de.json') as typeof de,
  fr: require('./lang/fr.json') as typeof fr,
  es: require('./lang/es.json') as typeof es,
};

export type Translate = (key: MailKey, values?: Record<string, string | number>) => string;

/** Texts in one language, with `${product}` always filled. */
export function translator(locale: Locale): Translate {
  const dictionary = DICTIONARIES[locale];
  return (key, values = {}) => fillPlaceholders(dictionary[key], { product: PRODUCT_NAME, ...values });
}

/** A stored or requested language, or English when it is not one we write mail in. */
export function mailLocale(value: string | null | undefined): Locale {
  return value !== null && value !== undefined && isSupportedLocale(value) ? value : DEFAULT_LOCALE;
}

/** Spec §7's rule for the visitor's language, applied to the Accept-Language of a request. */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  const found = candidateLocales(parseAcceptLanguage(header)).find((code) => isSupportedLocale(code));
  return mailLocale(found);
}

/**
 * A message is a list of blocks; the layout turns the same blocks into the plain-text and the
 * HTML part, so the two never say different things.
 */
export type MailBlock = { kind: 'text'; text: string } | { kind: 'note'; text: string } | { kind: 'button'; label: string; url: string };

export interface MailContent {
  subject: string;
  blocks: MailBlock[];
}

/**
 * One kind of email. Each feature defines its templates in its own file (signup.mail.ts,
 * invitation.mail.ts, …) and passes the template object to queueMail, so adding one touches
 * no registry: only the template file and its keys in lang/*.json.
 */
export interface MailTemplate<Data> {
  /** Stored as mail_outbox.kind. */
  kind: string;
  render(t: Translate, data: Data): MailContent;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** "Hi Ada," or a plain "Hello," when the account has no name yet (invitations). */
export function greeting(t: Translate, name: string | null | undefined): MailBlock {
  const trimmed = name?.trim() ?? '';
  return { kind: 'text', text: trimmed === '' ? t('mail.common.greetingNoName') : t('mail.common.greeting', { name: trimmed }) };
}

function textPart(t: Translate, blocks: MailBlock[]): string {
  // A button becomes its label over its address: no punctuation that some languages space differently.
  const parts = blocks.map((block) => (block.kind === 'button' ? `${block.label}\n${block.url}` : block.text));
  return `${[...parts, t('mail.common.signature')].join('\n\n')}\n\n-- \n${t('mail.common.footer')}\n`;
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const P = 'margin:0 0 16px;font-size:16px;line-height:1.5;color:#1f2933';
const NOTE = 'margin:0 0 16px;font-size:14px;line-height:1.5;color:#52606d';
const BUTTON = 'display:inline-block;padding:12px 24px;border-radius:6px;background:#0f766e;color:#ffffff;font-weight:600;text-decoration:none';

function htmlBlock(t: Translate, block: MailBlock): string {
  if (block.kind === 'text') return `<p style="${P}">${escapeHtml(block.text)}</p>`;
  if (block.kind === 'note') return `<p style="${NOTE}">${escapeHtml(block.text)}</p>`;
  const url = escapeHtml(block.url);
  return (
    `<p style="margin:24px 0"><a href="${url}" style="${BUTTON}">${escapeHtml(block.label)}</a></p>` +
    `<p style="${NOTE}">${escapeHtml(t('mail.common.linkFallback'))}<br><a href="${url}" style="color:#0f766e;word-break:break-all">${url}</a></p>`
  );
}

/** A simple, clean HTML part: inline styles only, as mail clients ignore style sheets. */
function htmlPart(t: Translate, locale: Locale, subject: string, blocks: MailBlock[]): string {
  return [
    '<!doctype html>',
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:#f4f5f7;${FONT}">`,
    '<div style="max-width:560px;margin:0 auto;padding:32px 16px">',
    `<p style="margin:0 0 16px;font-size:22px;font-weight:700;color:#0f766e">${escapeHtml(PRODUCT_NAME)}</p>`,
    '<div style="background:#ffffff;border-radius:8px;padding:32px 24px">',
    ...blocks.map((block) => htmlBlock(t, block)),
    `<p style="${P};margin-bottom:0">${escapeHtml(t('mail.common.signature'))}</p>`,
    '</div>',
    `<p style="margin:16px 0 0;font-size:12px;line-height:1.5;color:#7b8794">${escapeHtml(t('mail.common.footer'))}</p>`,
    '</div></body></html>',
    '',
  ].join('\n');
}

/** Renders a template in one language into subject, text part and HTML part. */
export function renderMail<Data>(template: MailTemplate<Data>, locale: Locale, data: Data): RenderedMail {
  const t = translator(locale);
  const content = template.render(t, data);
  // A header must stay on one line whatever a name placed in it contains.
  const subject = content.subject.replace(/[\r\n]+/g, ' ').trim();
  return { subject, text: textPart(t, content.blocks), html: htmlPart(t, locale, subject, content.blocks) };
}
