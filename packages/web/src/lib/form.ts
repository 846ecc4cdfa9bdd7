import { LIMITS, isValidEmail, nameOk, type MessageKey } from '@foyer/contract/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TextFieldProps } from '../components/text-field';
import { useT } from './i18n';

/** Spec §5: the person's first and last name must not be blank after trimming. */
export function firstNameError(value: string): MessageKey | null {
  return nameOk(value) ? null : 'validation.firstNameRequired';
}

export function lastNameError(value: string): MessageKey | null {
  return nameOk(value) ? null : 'validation.lastNameRequired';
}

/** Spec §5: the email at sign-up must match the contract's pattern (after trimming). */
export function emailError(value: string): MessageKey | null {
  return isValidEmail(value.trim()) ? null : 'validation.emailInvalid';
}

/**
 * Spec §5: at least 8 characters (counted in code points, as the contract counts them) and the
 * strength check must pass. `passes` is undefined while the estimator is not there yet: the
 * submit then asks for it and decides.
 */
export function newPasswordError(password: string, passes: boolean | undefined): MessageKey | null {
  const length = [...password].length;
  if (length < LIMITS.minPasswordLength) return 'validation.passwordLength';
  if (length > LIMITS.maxPasswordLength) return 'validation.passwordTooLong';
  return passes === false ? 'strength.tooWeak' : null;
}

/** Values for the placeholders of the field messages above. */
export const FIELD_MESSAGE_VALUES = { max: LIMITS.maxPasswordLength } as const;

/** The contract's limits (fields.ts), kept by the inputs so the server never has to refuse them. */
export const FIELD_MAX_LENGTH = { name: 100, phone: 40 } as const;

/**
 * Runs a change that follows leaving a field (a message appearing) now, or, while a pointer is
 * pressed, once the press is over: a message appearing between mouse-down and mouse-up pushes
 * what was pressed down the page, and the click would land beside it and be lost.
 */
export function useAfterPress(): (change: () => void) => void {
  const pressing = useRef(false);
  const waiting = useRef<Array<() => void>>([]);

  useEffect(() => {
    const down = () => {
      pressing.current = true;
    };
    const up = () => {
      // The click of this press is dispatched right after pointerup, before this task.
      setTimeout(() => {
        pressing.current = false;
        const changes = waiting.current;
        waiting.current = [];
        for (const change of changes) change();
      }, 0);
    };
    document.addEventListener('pointerdown', down, true);
    document.addEventListener('pointerup', up, true);
    document.addEventListener('pointercancel', up, true);
    return () => {
      document.removeEventListener('pointerdown', down, true);
      document.removeEventListener('pointerup', up, true);
      document.removeEventListener('pointercancel', up, true);
    };
  }, []);

  return useCallback((change: () => void) => {
    if (pressing.current) waiting.current.push(change);
    else change();
  }, []);
}

export type CheckedFieldProps = Pick<TextFieldProps, 'value' | 'onValueChange' | 'onBlur' | 'disabled' | 'required' | 'validity' | 'message'>;

/**
 * Spec §5 messages appear once a field has been left, or for every field after a submit; a
 * submit with errors moves focus to the first invalid field, so keyboard and screen-reader users
 * land on what needs fixing.
 *
 * A field left by pressing on something else (the submit button, most often) shows its message
 * only once the press is over (useAfterPress).
 */
export function useTouchedFields<F extends string>() {
  const t = useT();
  const [touched, setTouched] = useState<ReadonlySet<F>>(() => new Set());
  const [submitted, setSubmitted] = useState(false);
  const [attempts, setAttempts] = useState(0);

  useEffect(() => {
    // One form per screen: its first invalid field, in document order.
    if (attempts > 0) document.querySelector<HTMLElement>('main form [aria-invalid="true"]')?.focus();
  }, [attempts]);

  const afterPress = useAfterPress();
  const touch = useCallback(
    (field: F) => afterPress(() => setTouched((previous) => (previous.has(field) ? previous : new Set(previous).add(field)))),
    [afterPress],
  );

  const shows = (field: F) => submitted || touched.has(field);

  return {
    /** A required field's props: its value, and its message once it shows. */
    fieldProps: (field: F, value: string, onValueChange: (value: string) => void, error: MessageKey | null, disabled: boolean): CheckedFieldProps => {
      const shown = shows(field) ? error : null;
      return {
        value,
        onValueChange,
        onBlur: () => touch(field),
        disabled,
        required: true,
        validity: shown === null ? undefined : 'error',
        message: shown === null ? undefined : t(shown, FIELD_MESSAGE_VALUES),
      };
    },
    /** Shows every message and focuses the first invalid field. */
    submitFailed: () => {
      setSubmitted(true);
      setAttempts((count) => count + 1);
    },
  };
}
