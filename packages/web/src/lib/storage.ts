import { COOKIE_BASE_NAMES, LIMITS, RANDOM_ID_PATTERN, STORAGE_KEYS, type StorageKey } from '@foyer/contract/core';

/**
 * Browser storage (spec §3). localStorage can be missing or throw (storage disabled, some
 * private modes); every access is guarded so the page still works, only without memory.
 */
function localStore(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function readItem(key: StorageKey): string | null {
  try {
    return localStore()?.getItem(STORAGE_KEYS[key]) ?? null;
  } catch {
    return null;
  }
}

export function writeItem(key: StorageKey, value: string): void {
  try {
    localStore()?.setItem(STORAGE_KEYS[key], value);
  } catch {
    // Quota or a disabled store: the value lives only as long as the page.
  }
}

export function removeItem(key: StorageKey): void {
  try {
    localStore()?.removeItem(STORAGE_KEYS[key]);
  } catch {
    // Nothing stored, nothing to remove.
  }
}

/** Boolean flags (the preferred-SSO flag, spec §4) are stored as the text 'true'. */
export function isFlagSet(key: StorageKey): boolean {
  return readItem(key) === 'true';
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 248 = 4 × 62: bytes at or above it are dropped so that every symbol is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ID_ALPHABET.length);

/** Spec §9: generated random ids are 12 characters, from a CSPRNG over [A-Za-z0-9]. */
export function randomId(length: number = LIMITS.randomIdLength): string {
  let id = '';
  const bytes = new Uint8Array(length * 2);
  while (id.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte < UNBIASED_LIMIT && id.length < length) id += ID_ALPHABET.charAt(byte % ID_ALPHABET.length);
    }
  }
  return id;
}

// When localStorage is unavailable the id still stays the same for the life of the page.
let pageDeviceId: string | undefined;

/** Spec §3: the device id is created if missing and kept in local storage. */
export function deviceId(): string {
  const stored = readItem('deviceId');
  if (stored !== null && RANDOM_ID_PATTERN.test(stored)) return stored;
  pageDeviceId ??= randomId();
  writeItem('deviceId', pageDeviceId);
  return pageDeviceId;
}

export function readCookie(name: string, cookies: string = document.cookie): string | undefined {
  for (const pair of cookies.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const raw = pair.slice(separator + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return undefined;
}

/**
 * Spec §7: the XSRF header carries the value of the `XSRF-TOKEN` cookie, which keeps that exact
 * name in every environment (decision 0004: no `_{env}` suffix for it).
 */
export function xsrfToken(): string | undefined {
  return readCookie(COOKIE_BASE_NAMES.xsrf);
}
