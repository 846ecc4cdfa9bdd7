import type { MouseEvent, ReactNode } from 'react';
import { Spinner } from './spinner';
import { Tooltip, type TooltipTriggerProps } from './tooltip';

/** Spec §2: the button variants. */
export type ButtonVariant = 'regular' | 'strong' | 'flat' | 'danger' | 'dark' | 'outline' | 'teal' | 'underlined' | 'icon';

interface CommonProps {
  variant?: ButtonVariant;
  /** Shows the spinner, marks the control busy and disables it. */
  loading?: boolean;
  disabled?: boolean;
  tooltip?: string;
  /** Fills the width of its container (the forms' main actions). */
  block?: boolean;
  /** A leading decorative icon. */
  icon?: ReactNode;
  children?: ReactNode;
  /** Required for the `icon` variant, whose content is only a picture. */
  'aria-label'?: string;
  className?: string;
}

interface AsButton extends CommonProps {
  type?: 'button' | 'submit' | 'reset';
  onClick?: (event: MouseEvent<HTMLButtonElement>) => void;
  'aria-pressed'?: boolean;
  'aria-controls'?: string;
  to?: never;
  href?: never;
}

/**
 * A link to one of Foyer's own pages (a path such as `ROUTES.signUp`). It is a plain `<a href>`,
 * a full page load, not a react-router `Link`: the sign-in page must stay within its bundle budget
 * (80 KB of gzipped JavaScript on the first load), which leaves no room for react-router, and
 * this button is on it. Nothing is lost: the auth screens are separate page loads, each served
 * with its runtime config and dictionary inlined, and the scripts come from the cache. It also
 * means no shared component needs a router around it.
 */
interface AsInternalLink extends CommonProps {
  to: string;
  /** Runs before the browser follows the link (SSO sign-in clears its stored preference). */
  onClick?: (event: MouseEvent<HTMLAnchorElement>) => void;
  href?: never;
}

/** A link that leaves the app. */
interface AsExternalLink extends CommonProps {
  href: string;
  target?: '_blank' | '_self';
  to?: never;
}

export type ButtonProps = AsButton | AsInternalLink | AsExternalLink;

export function Button(props: ButtonProps) {
  const { variant = 'regular', loading = false, disabled = false, tooltip, block = false, icon, children, className } = props;
  const inactive = disabled || loading;
  const classes = ['button', `button-${variant}`, block ? 'button-block' : '', className ?? ''].filter(Boolean).join(' ');
  const content = (
    <>
      {loading ? <Spinner size={20} decorative /> : icon}
      {children === undefined ? null : <span className="button-label">{children}</span>}
    </>
  );

  const render = (trigger: Partial<TooltipTriggerProps>) => {
    const shared = {
      className: classes,
      'aria-label': props['aria-label'],
      'aria-busy': loading || undefined,
      ...trigger,
    };
    if (props.to !== undefined) {
      if (inactive)
        return (
          <a {...shared} aria-disabled="true">
            {content}
          </a>
        );
      return (
        <a {...shared} href={props.to} onClick={props.onClick}>
          {content}
        </a>
      );
    }
    if (props.href !== undefined) {
      if (inactive)
        return (
          <a {...shared} aria-disabled="true">
            {content}
          </a>
        );
      // A new tab gets no handle on this page (reverse tabnabbing) and no referrer.
      const opensTab = props.target === '_blank';
      return (
        <a {...shared} href={props.href} target={props.target} rel={opensTab ? 'noopener noreferrer' : undefined}>
          {content}
        </a>
      );
    }
    return (
      <button
        {...shared}
        type={props.type ?? 'button'}
        disabled={inactive}
        onClick={props.onClick}
        aria-pressed={props['aria-pressed']}
        aria-controls={props['aria-controls']}
      >
        {content}
      </button>
    );
  };

  if (tooltip === undefined) return render({});
  return (
    <Tooltip label={tooltip} describes={tooltip !== props['aria-label']}>
      {render}
    </Tooltip>
  );
}
