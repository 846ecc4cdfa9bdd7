import { useEffect, useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { useT } from '../lib/i18n';
import { Logo } from './logo';
import { Spinner } from './spinner';

/**
 * Spec §2: the centred card with the logo that every account screen uses. One `<main>` and one
 * `<h1>` per screen; the document title follows the heading (WCAG 2.4.2). `focusHeading` is for
 * a state that replaces the form the visitor was in (sign-up's 'Check Your Email'): focus moves
 * to the new heading instead of falling back to the page body, so a screen reader reads on from
 * there.
 */
export function CardLayout({
  title,
  children,
  footer,
  focusHeading = false,
}: {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
  focusHeading?: boolean;
}) {
  const t = useT();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const productName = t('product.name');
  // In the same commit as the heading, so the tab title never names the previous screen.
  useLayoutEffect(() => {
    document.title = title === productName ? title : `${title} · ${productName}`;
  }, [title, productName]);
  useEffect(() => {
    if (focusHeading) headingRef.current?.focus();
  }, [focusHeading, title]);

  return (
    <div className="layout">
      <main className="card" aria-labelledby={headingId}>
        <Logo />
        <h1 id={headingId} ref={headingRef} className="card-title" tabIndex={focusHeading ? -1 : undefined}>
          {title}
        </h1>
        <div className="card-body">{children}</div>
        {footer === undefined ? null : <div className="card-footer">{footer}</div>}
      </main>
    </div>
  );
}

/**
 * The neutral full-page spinner shown while a screen's code or data arrives. `delayed` shows it
 * only if the wait lasts (a short wait stays a blank page instead of a flicker).
 */
export function PageSpinner({ delayed = false }: { delayed?: boolean }) {
  const t = useT();
  // Still a page: its one main region and heading (the product's name) until the screen comes.
  return (
    <main className="page-spinner" data-delayed={delayed || undefined}>
      <h1 className="visually-hidden">{t('product.name')}</h1>
      <Spinner />
    </main>
  );
}
