import { useEffect, useRef, type ReactNode } from 'react';
import { ErrorIcon, InfoIcon, SuccessIcon } from './icons';

export type AlertVariant = 'success' | 'error' | 'info';

/**
 * Spec §2: an alert that is success or error; `info` is the quieter form for notices such as
 * an expired session. Errors are announced at once (role alert), the others politely (status).
 * The content may hold links and lists. `focusOnShow` moves focus to the alert when it appears,
 * for failures after a submit: the busy button was disabled, so focus would otherwise fall back
 * to the page body.
 */
export function Alert({
  variant,
  title,
  children,
  focusOnShow = false,
  id,
}: {
  variant: AlertVariant;
  /** For a field that the alert describes (aria-describedby). */
  id?: string;
  title?: ReactNode;
  children?: ReactNode;
  focusOnShow?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusOnShow) ref.current?.focus();
  }, [focusOnShow]);
  const Icon = variant === 'error' ? ErrorIcon : variant === 'success' ? SuccessIcon : InfoIcon;
  return (
    <div ref={ref} id={id} className={`alert alert-${variant}`} role={variant === 'error' ? 'alert' : 'status'} tabIndex={focusOnShow ? -1 : undefined}>
      <Icon />
      <div className="alert-body">
        {title === undefined ? null : <p className="alert-title">{title}</p>}
        {children}
      </div>
    </div>
  );
}
