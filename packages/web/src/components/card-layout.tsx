import { useEffect, useId, type ReactNode } from 'react';
import { useT } from '../lib/i18n';
import { Logo } from './logo';
import { Spinner } from './spinner';

/**
 * Spec §2: the centred card with the logo that every account screen uses. One `<main>` and one
 * `<h1>` per screen; the document title follows the heading (WCAG 2.4.2).
 */
export function CardLayout({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  const t = useT();
  const headingId = useId();
  const productName = t('product.name');
  useEffect(() => {
    document.title = title === productName ? title : `${title} · ${productName}`;
  }, [title, productName]);

  return (
    <div className="layout">
      <main className="card" aria-labelledby={headingId}>
        <Logo />
        <h1 id={headingId} className="card-title">
          {title}
        </h1>
        <div className="card-body">{children}</div>
        {footer === undefined ? null : <div className="card-footer">{footer}</div>}
      </main>
    </div>
  );
}

/** The neutral full-page spinner shown while a screen's code or data arrives. */
export function PageSpinner() {
  return (
    <div className="page-spinner">
      <Spinner />
    </div>
  );
}
