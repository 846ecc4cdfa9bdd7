import { useT } from '../lib/i18n';

/** The Foyer mark: a doorway, the entrance hall the product is named after (also public/logo.svg). */
export function Logo() {
  const t = useT();
  return (
    <div className="brand">
      <svg className="brand-mark" width="40" height="40" viewBox="0 0 40 40" role="img" aria-label={t('product.logoAlt')}>
        <rect width="40" height="40" rx="11" fill="#4338ca" />
        <path d="M12.5 31V18.5a7.5 7.5 0 0 1 15 0V31Z" fill="#a5b4fc" />
        <path d="M12.5 31V18.5a7.5 7.5 0 0 1 15 0V31" fill="none" stroke="#fff" strokeWidth="3" strokeLinejoin="round" />
        <circle cx="23.5" cy="24" r="1.6" fill="#4338ca" />
      </svg>
      {/* The mark already carries the name for assistive technology. */}
      <span className="brand-name" aria-hidden="true">
        {t('product.name')}
      </span>
    </div>
  );
}
