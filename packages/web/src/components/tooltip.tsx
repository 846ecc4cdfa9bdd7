import { TOOLTIP_DEFAULTS } from '@foyer/contract/core';
import { useId, useState, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';

export interface TooltipTriggerProps {
  'aria-describedby'?: string;
  onFocus: () => void;
  onBlur: () => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

// Spec §9 tooltip defaults, handed to the stylesheet so the numbers live only in the contract.
const tooltipStyle = {
  '--tooltip-offset': `${TOOLTIP_DEFAULTS.offset}px`,
  '--tooltip-fade': `${TOOLTIP_DEFAULTS.fadeSeconds}s`,
} as CSSProperties;

/**
 * A tooltip shown on hover and on keyboard focus, dismissed with Escape (WCAG 1.4.13), and
 * linked to its trigger by aria-describedby. When the tooltip repeats the trigger's accessible
 * name (an icon button), `describes={false}` leaves the link out so it is not read twice.
 */
export function Tooltip({
  label,
  describes = true,
  children,
}: {
  label: string;
  describes?: boolean;
  children: (trigger: TooltipTriggerProps) => ReactNode;
}) {
  const id = useId();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const open = (hovered || focused) && !dismissed;

  const trigger: TooltipTriggerProps = {
    onFocus: () => {
      setFocused(true);
      setDismissed(false);
    },
    onBlur: () => setFocused(false),
    onKeyDown: (event) => {
      if (event.key === 'Escape' && open) setDismissed(true);
    },
  };
  if (describes) trigger['aria-describedby'] = id;

  return (
    <span
      className="tooltip-anchor"
      style={tooltipStyle}
      onMouseEnter={() => {
        setHovered(true);
        setDismissed(false);
      }}
      onMouseLeave={() => setHovered(false)}
    >
      {children(trigger)}
      {/* Closed, it stays in the DOM (for aria-describedby and the fade) but out of the tree. */}
      <span role="tooltip" id={id} className="tooltip" data-place={TOOLTIP_DEFAULTS.place} data-open={open} aria-hidden={!open || undefined}>
        {label}
      </span>
    </span>
  );
}
