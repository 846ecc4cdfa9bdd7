import type { MessageKey } from '@foyer/contract/core';
import { ZxcvbnFactory, type TranslationKeys } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonDictionary } from '@zxcvbn-ts/language-common';
import { dictionary as englishDictionary } from '@zxcvbn-ts/language-en';

/**
 * The heavy side of the strength meter: zxcvbn-ts and its word lists (several hundred KB
 * gzipped). Only use-password-strength.ts imports it, and only dynamically, so it is a chunk of
 * its own that a screen fetches when its new-password field is first used; sign-in never does.
 * It imports no value from the rest of the app (the caller passes the length limit), so the
 * bundler has no module to share between it and the first bundle.
 */

type FeedbackTranslations = Pick<TranslationKeys, 'warnings' | 'suggestions'>;

/**
 * zxcvbn-ts writes its feedback in whatever `translations` it is given. Giving it our dictionary
 * keys means its feedback comes back as keys, which the page shows in the visitor's language
 * from our dictionaries (and a change of language needs no new estimator).
 */
const FEEDBACK_KEYS = {
  warnings: {
    straightRow: 'strength.warning.straightRow',
    keyPattern: 'strength.warning.keyPattern',
    simpleRepeat: 'strength.warning.simpleRepeat',
    extendedRepeat: 'strength.warning.extendedRepeat',
    sequences: 'strength.warning.sequences',
    recentYears: 'strength.warning.recentYears',
    dates: 'strength.warning.dates',
    topTen: 'strength.warning.topTen',
    topHundred: 'strength.warning.topHundred',
    common: 'strength.warning.common',
    similarToCommon: 'strength.warning.similarToCommon',
    wordByItself: 'strength.warning.wordByItself',
    namesByThemselves: 'strength.warning.namesByThemselves',
    commonNames: 'strength.warning.commonNames',
    userInputs: 'strength.warning.userInputs',
    pwned: 'strength.warning.pwned',
  },
  suggestions: {
    l33t: 'strength.suggestion.l33t',
    reverseWords: 'strength.suggestion.reverseWords',
    allUppercase: 'strength.suggestion.allUppercase',
    capitalization: 'strength.suggestion.capitalization',
    dates: 'strength.suggestion.dates',
    recentYears: 'strength.suggestion.recentYears',
    associatedYears: 'strength.suggestion.associatedYears',
    sequences: 'strength.suggestion.sequences',
    repeated: 'strength.suggestion.repeated',
    longerKeyboardPattern: 'strength.suggestion.longerKeyboardPattern',
    anotherWord: 'strength.suggestion.anotherWord',
    useWords: 'strength.suggestion.useWords',
    noNeed: 'strength.suggestion.noNeed',
    pwned: 'strength.suggestion.pwned',
  },
} as const satisfies FeedbackTranslations & Record<keyof FeedbackTranslations, Record<string, MessageKey>>;

type FeedbackKey =
  (typeof FEEDBACK_KEYS.warnings)[keyof typeof FEEDBACK_KEYS.warnings] | (typeof FEEDBACK_KEYS.suggestions)[keyof typeof FEEDBACK_KEYS.suggestions];

// Crack-time texts are required by the options' check but never shown: the keys themselves do.
const TIME_ESTIMATION_KEYS: TranslationKeys['timeEstimation'] = {
  ltSecond: 'ltSecond',
  second: 'second',
  seconds: 'seconds',
  minute: 'minute',
  minutes: 'minutes',
  hour: 'hour',
  hours: 'hours',
  day: 'day',
  days: 'days',
  month: 'month',
  months: 'months',
  year: 'year',
  years: 'years',
  centuries: 'centuries',
};

export type StrengthScore = 0 | 1 | 2 | 3 | 4;

export interface Estimate {
  score: StrengthScore;
  warning: MessageKey | null;
  suggestions: MessageKey[];
}

let factory: ZxcvbnFactory | undefined;

function estimator(maxLength: number): ZxcvbnFactory {
  // Built on first use: ranking the word lists is the one slow step, and it happens once.
  factory ??= new ZxcvbnFactory({
    dictionary: { ...commonDictionary, ...englishDictionary },
    graphs: adjacencyGraphs,
    translations: { ...FEEDBACK_KEYS, timeEstimation: TIME_ESTIMATION_KEYS },
    maxLength,
  });
  return factory;
}

const KNOWN_KEYS = new Set<string>([...Object.values(FEEDBACK_KEYS.warnings), ...Object.values(FEEDBACK_KEYS.suggestions)]);
const isFeedbackKey = (text: string): text is FeedbackKey => KNOWN_KEYS.has(text);

/** Builds the estimator (about 100 ms) while the visitor is not typing yet, not on a keystroke. */
export function prepare(maxLength: number): void {
  estimator(maxLength);
}

/**
 * zxcvbn's score and feedback; `userInputs` (the person's name and email) count against it.
 * `maxLength` is the longest password the form accepts: zxcvbn looks at no more than that.
 */
export function estimate(password: string, userInputs: readonly string[], maxLength: number): Estimate {
  const { score, feedback } = estimator(maxLength).check(password, [...userInputs]);
  return {
    score,
    warning: feedback.warning !== null && isFeedbackKey(feedback.warning) ? feedback.warning : null,
    suggestions: feedback.suggestions.filter(isFeedbackKey),
  };
}
