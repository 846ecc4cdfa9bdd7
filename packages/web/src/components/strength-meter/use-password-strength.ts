import { LIMITS } from '@foyer/contract/core';
import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import type * as EstimatorModule from './estimator';
import type { Estimate } from './estimator';

type Estimator = typeof EstimatorModule;

/**
 * Spec §5: the password "must pass the strength check". It passes at zxcvbn score 3 or 4, an
 * estimated 10^8 guesses or more. Why 3 rather than the also-common 2:
 * - score 2 (10^6 to 10^8 guesses) only resists online guessing, which the lockout and rate
 *   limits already bound; a stolen database is attacked offline, where score 3 is zxcvbn's
 *   "moderate protection from an offline slow-hash scenario" (argon2id is our slow hash);
 * - zxcvbn stops giving feedback from score 3 on: with this threshold a password is accepted
 *   exactly when the meter has no more warnings or suggestions to show, so what the meter says
 *   and what the form accepts never disagree.
 * A passphrase of three or four ordinary words passes easily.
 */
export const MIN_PASSING_SCORE = 3;

export interface Strength extends Estimate {
  passes: boolean;
}

let loading: Promise<Estimator> | undefined;

/**
 * The lazy boundary: zxcvbn-ts and its word lists arrive as their own chunk, on the first change
 * of a new-password field (or at submit), never with the screen itself (and never on sign-in).
 */
export function loadEstimator(): Promise<Estimator> {
  loading ??= import('./estimator')
    .then((loaded) => {
      // The word lists are ranked once, in a task of their own, rather than in the render that
      // shows the first estimate.
      setTimeout(() => loaded.prepare(LIMITS.maxPasswordLength), 0);
      return loaded;
    })
    .catch((error: unknown) => {
      // A failed chunk load is retried on the next use rather than remembered.
      loading = undefined;
      throw error;
    });
  return loading;
}

function withVerdict(estimate: Estimate): Strength {
  return { ...estimate, passes: estimate.score >= MIN_PASSING_SCORE };
}

/**
 * What counts against a password beyond zxcvbn's word lists (spec §5's strength check): the
 * person's names, alone and run together both ways (zxcvbn does not join two of its matches into
 * one guess), their email address, its local part and the pieces of both, and the product's name.
 */
export function personalInputs({ names = [], email, productName }: { names?: string[]; email?: string; productName?: string }): string[] {
  const inputs = new Set<string>();
  const add = (value: string) => {
    // One- and two-letter pieces would match inside almost any password.
    if (value.length >= 3) inputs.add(value);
  };
  const words = names.map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  for (const name of words) {
    add(name);
    name.split(/[\s'-]+/).forEach(add);
  }
  if (words.length > 1) {
    for (const separator of ['', '.', ' ']) {
      add(words.join(separator));
      add([...words].reverse().join(separator));
    }
  }
  const address = email?.trim().toLowerCase() ?? '';
  if (address !== '') {
    add(address);
    const [local = '', domain = ''] = address.split('@');
    add(local);
    local.split(/[._+-]+/).forEach(add);
    // The organisation's name, without the top-level domain.
    domain.split('.').slice(0, -1).forEach(add);
  }
  if (productName !== undefined) add(productName.trim().toLowerCase());
  return [...inputs];
}

export interface PasswordStrength {
  /**
   * The estimate the meter shows: of the password as typed, a moment behind the keystrokes (React's
   * deferred value); null for an empty one and until the estimator has loaded.
   */
  result: Strength | null;
  /**
   * The verdict on exactly the current password, for a form's validation: undefined while the
   * estimate still describes an earlier value (a paste or a password manager's fill that is
   * submitted at once), so the form then asks `check` instead of trusting a stale verdict.
   */
  passes: boolean | undefined;
  /** Starts loading the estimator (the field's first change); typing never waits for it. */
  activate: () => void;
  /** For a submit: the estimate of exactly this password, loading the estimator if needed; null if it cannot load. */
  check: (password: string) => Promise<Strength | null>;
}

export function usePasswordStrength(password: string, userInputs: readonly string[]): PasswordStrength {
  const [estimator, setEstimator] = useState<Estimator | null>(null);
  const requested = useRef(false);
  // The inputs change identity on every render of the caller; their text is what matters.
  const inputsKey = userInputs.join('\n');
  const inputs = useMemo(() => (inputsKey === '' ? [] : inputsKey.split('\n')), [inputsKey]);
  // Typing stays responsive: the estimate follows the keystrokes at React's lower priority.
  const deferredPassword = useDeferredValue(password);

  const activate = useCallback(() => {
    if (requested.current) return;
    requested.current = true;
    loadEstimator().then(setEstimator, () => {
      // Without the estimator the meter stays hidden and the next change tries again.
      requested.current = false;
    });
  }, []);

  const check = useCallback(
    async (candidate: string): Promise<Strength | null> => {
      let loaded: Estimator;
      try {
        loaded = await loadEstimator();
      } catch {
        return null;
      }
      setEstimator(loaded);
      return withVerdict(loaded.estimate(candidate, inputs, LIMITS.maxPasswordLength));
    },
    [inputs],
  );

  const result = useMemo(
    () => (estimator === null || deferredPassword === '' ? null : withVerdict(estimator.estimate(deferredPassword, inputs, LIMITS.maxPasswordLength))),
    [estimator, deferredPassword, inputs],
  );

  const passes = result !== null && deferredPassword === password ? result.passes : undefined;
  return { result, passes, activate, check };
}
