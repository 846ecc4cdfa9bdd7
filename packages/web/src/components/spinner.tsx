import { LIMITS } from '@foyer/contract/core';
import type { CSSProperties } from 'react';
import { useI18n } from '../lib/i18n';

export interface SpinnerProps {
  /** Spec §2: 40 px by default. */
  size?: number;
  /** Shown under the spinner and used as its accessible name; otherwise 'Loading…' is announced. */
  title?: string;
  /** Any CSS colour; the spinner otherwise takes the text colour around it. */
  colour?: string;
  /** Inside a control that already says it is busy (aria-busy), the spinner is only a picture. */
  decorative?: boolean;
}

export function Spinner({ size = LIMITS.spinnerSizePx, title, colour, decorative = false }: SpinnerProps) {
  const { t } = useI18n();
  const style: CSSProperties = colour === undefined ? {} : { color: colour };
  const wheel = (
    <svg className="spinner-wheel" width={size} height={size} viewBox="0 0 40 40" aria-hidden="true" focusable="false">
      <circle className="spinner-track" cx="20" cy="20" r="16" fill="none" strokeWidth="4" />
      <circle className="spinner-arc" cx="20" cy="20" r="16" fill="none" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
  if (decorative) {
    return (
      <span className="spinner" style={style} aria-hidden="true">
        {wheel}
      </span>
    );
  }
  return (
    <span className="spinner" style={style} role="status">
      {wheel}
      {title === undefined ? <span className="visually-hidden">{t('common.loading')}</span> : <span className="spinner-title">{title}</span>}
    </span>
  );
}
