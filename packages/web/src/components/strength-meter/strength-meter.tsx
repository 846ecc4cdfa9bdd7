import type { MessageKey } from '@foyer/contract/core';
import { useId } from 'react';
import { useT } from '../../lib/i18n';
import { TextField, type TextFieldProps } from '../text-field';
import type { StrengthScore } from './estimator';
import type { PasswordStrength, Strength } from './use-password-strength';

const SCORE_KEYS: Record<StrengthScore, MessageKey> = {
  0: 'strength.0',
  1: 'strength.1',
  2: 'strength.2',
  3: 'strength.3',
  4: 'strength.4',
};
const SEGMENTS = [1, 2, 3, 4] as const;

/**
 * Spec §2, §5: the strength meter: a meter (score 0–4, named 'Password strength', valued with the
 * strength.0–4 words) and zxcvbn's warning and suggestions. The region is polite and atomic, so a
 * screen reader hears the whole verdict once typing pauses, and it is always in the page (empty
 * until there is a verdict) so that its first content is announced too.
 */
export function StrengthMeter({ id, result }: { id: string; result: Strength | null }) {
  const t = useT();
  const scoreText = result === null ? '' : t(SCORE_KEYS[result.score]);
  return (
    <div id={id} className="strength" aria-live="polite" aria-atomic="true">
      {result === null ? null : (
        <>
          <div
            className="strength-bar"
            role="meter"
            aria-label={t('strength.label')}
            aria-valuemin={0}
            aria-valuemax={4}
            aria-valuenow={result.score}
            aria-valuetext={scoreText}
            data-score={result.score}
          >
            {SEGMENTS.map((segment) => (
              // Scores 0 and 1 both light the first segment; the colour and the word tell them apart.
              <span key={segment} className="strength-segment" data-filled={segment <= Math.max(result.score, 1)} />
            ))}
          </div>
          <p className="strength-value">{t('strength.value', { strength: scoreText })}</p>
          {result.warning === null && result.suggestions.length === 0 ? null : (
            <div className="strength-feedback">
              {result.warning === null ? null : <p className="strength-warning">{t(result.warning)}</p>}
              {result.suggestions.length === 0 ? null : (
                <ul className="strength-suggestions">
                  {result.suggestions.map((key) => (
                    <li key={key}>{t(key)}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}

export interface NewPasswordFieldProps extends Omit<TextFieldProps, 'type' | 'autoComplete' | 'onFocus'> {
  strength: PasswordStrength;
}

/**
 * A new-password field with its strength meter. The estimator (about 830 KB gzipped with its
 * dictionaries) starts loading on the first change of the value, typed or filled by a password
 * manager, not on focus: the reset screen focuses its field on open, and a visitor who only looks
 * should not pay for it. Typing never waits for it; the meter appears once it has loaded.
 */
export function NewPasswordField({ strength, value, onValueChange, describedBy, ...field }: NewPasswordFieldProps) {
  const meterId = useId();
  const result = value === '' ? null : strength.result;
  return (
    <div className="field-group">
      <TextField
        {...field}
        type="password"
        autoComplete="new-password"
        value={value}
        onValueChange={(next) => {
          strength.activate();
          onValueChange(next);
        }}
        // The verdict describes the field once there is one, after whatever else does.
        describedBy={[describedBy, result === null ? undefined : meterId].filter(Boolean).join(' ') || undefined}
      />
      <StrengthMeter id={meterId} result={result} />
    </div>
  );
}
