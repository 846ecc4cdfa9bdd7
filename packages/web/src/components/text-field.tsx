import { useId, useRef, useState, type HTMLInputAutoCompleteAttribute, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useT } from '../lib/i18n';
import { Button } from './button';
import { ClearIcon, ErrorIcon, EyeIcon, EyeOffIcon, InfoIcon, SuccessIcon } from './icons';

export type Validity = 'success' | 'error';

export interface TextFieldProps {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'tel';
  name?: string;
  autoComplete?: HTMLInputAutoCompleteAttribute;
  autoFocus?: boolean;
  disabled?: boolean;
  required?: boolean;
  placeholder?: string;
  /** Spec §2 validity states; `error` marks the input invalid. */
  validity?: Validity;
  /** The text under the field; linked to the input by aria-describedby. */
  message?: ReactNode;
  /** Offers the 'Clear this text field' button while the field has text. */
  clearable?: boolean;
  maxLength?: number;
  /** Ids of further elements that describe the input (a strength meter), after the message. */
  describedBy?: string;
  onFocus?: () => void;
  /** For 'touched' validation: messages appear once a field has been left. */
  onBlur?: () => void;
  /** The input element, for a screen that moves focus to it (after a failed submit). */
  inputRef?: RefObject<HTMLInputElement | null>;
}

/**
 * Spec §2: the text field, with a real label, a show/hide toggle for passwords, a clear button
 * and the success and error states.
 */
export function TextField({
  label,
  value,
  onValueChange,
  type = 'text',
  name,
  autoComplete,
  autoFocus,
  disabled = false,
  required = false,
  placeholder,
  validity,
  message,
  clearable = false,
  maxLength,
  describedBy,
  onFocus,
  onBlur,
  inputRef: givenRef,
}: TextFieldProps) {
  const t = useT();
  const inputId = useId();
  const messageId = useId();
  const capsLockId = useId();
  const ownRef = useRef<HTMLInputElement>(null);
  const inputRef = givenRef ?? ownRef;
  const [revealed, setRevealed] = useState(false);
  const [capsLock, setCapsLock] = useState(false);
  const isPassword = type === 'password';
  const showClear = clearable && value !== '' && !disabled;
  const actions = (showClear ? 1 : 0) + (isPassword ? 1 : 0);

  const toggleLabel = revealed ? t('tooltip.hidePassword') : t('tooltip.showPassword');
  const ValidityIcon = validity === 'error' ? ErrorIcon : SuccessIcon;
  const describedByIds = [message === undefined ? undefined : messageId, capsLock ? capsLockId : undefined, describedBy].filter(Boolean).join(' ');

  // A password typed with Caps Lock on fails for a reason nobody can see: say so while it is on.
  // Read from every key event, since the lock can change while another window has focus.
  const readCapsLock = (event: KeyboardEvent<HTMLInputElement>) => {
    if (isPassword) setCapsLock(event.getModifierState('CapsLock'));
  };

  return (
    <div className="field" data-validity={validity}>
      <label className="field-label" htmlFor={inputId}>
        {label}
      </label>
      <div className="field-control" data-actions={actions}>
        <input
          ref={inputRef}
          id={inputId}
          className="field-input"
          type={isPassword && revealed ? 'text' : type}
          name={name}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
          autoComplete={autoComplete}
          autoFocus={autoFocus}
          disabled={disabled}
          required={required}
          placeholder={placeholder}
          aria-invalid={validity === 'error' || undefined}
          aria-describedby={describedByIds === '' ? undefined : describedByIds}
          maxLength={maxLength}
          onFocus={onFocus}
          onBlur={() => {
            setCapsLock(false);
            onBlur?.();
          }}
          onKeyDown={readCapsLock}
          onKeyUp={readCapsLock}
          // Passwords and addresses are not prose: no capitals or corrections on phones.
          autoCapitalize={type === 'text' ? undefined : 'none'}
          autoCorrect={type === 'text' ? undefined : 'off'}
          spellCheck={type === 'text' ? undefined : false}
        />
        {actions === 0 ? null : (
          <div className="field-actions">
            {showClear ? (
              <Button
                variant="icon"
                aria-label={t('tooltip.clearField')}
                tooltip={t('tooltip.clearField')}
                onClick={() => {
                  onValueChange('');
                  inputRef.current?.focus();
                }}
                icon={<ClearIcon />}
              />
            ) : null}
            {isPassword ? (
              <Button
                variant="icon"
                // The changing name says the state ('Show password' / 'Hide password', spec §2):
                // no aria-pressed besides, or a screen reader announces the state twice.
                aria-label={toggleLabel}
                tooltip={toggleLabel}
                aria-controls={inputId}
                disabled={disabled}
                onClick={() => setRevealed((shown) => !shown)}
                icon={revealed ? <EyeOffIcon /> : <EyeIcon />}
              />
            ) : null}
          </div>
        )}
      </div>
      {isPassword ? (
        // Always in the page, so that the notice is announced when it appears.
        <p id={capsLockId} className="field-caps-lock" aria-live="polite">
          {capsLock ? (
            <>
              <InfoIcon />
              <span>{t('common.capsLockOn')}</span>
            </>
          ) : null}
        </p>
      ) : null}
      {message === undefined ? null : (
        <p id={messageId} className="field-message">
          {validity === undefined ? null : <ValidityIcon />}
          <span>{message}</span>
        </p>
      )}
    </div>
  );
}
