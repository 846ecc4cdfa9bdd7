import { useT } from '../lib/i18n';

/**
 * A link to another site that opens in a new tab (the marketing site's terms and privacy pages).
 * The new tab gets no handle on this page (reverse tabnabbing) and no referrer, and the link's
 * name says that it opens a tab (WCAG 3.2.5); the name starts with the visible text (WCAG
 * 2.5.3). Without an address (the environment has no marketing site) the text stands alone.
 */
export function ExternalLink({ href, label }: { href: string | undefined; label: string }) {
  const t = useT();
  if (href === undefined) return <>{label}</>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" aria-label={`${label} ${t('common.opensInNewTab')}`}>
      {label}
    </a>
  );
}
