import { STORAGE_KEYS, type StorageKey } from '@foyer/contract/core';

/**
 * The tab's session storage, kept out of lib/storage.ts so the sign-in page's first load does not
 * carry it: what one sign-in round trip keeps across the provider's pages (spec §4: the Google
 * state nonce and the query; decision 0022: SSO sign-in's `from`). Per tab, so two tabs signing
 * in at once do not mix their states, and gone when the tab closes. Guarded like localStorage.
 */
function sessionStore(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function readSessionItem(key: StorageKey): string | null {
  try {
    return sessionStore()?.getItem(STORAGE_KEYS[key]) ?? null;
  } catch {
    return null;
  }
}

export function writeSessionItem(key: StorageKey, value: string): void {
  try {
    sessionStore()?.setItem(STORAGE_KEYS[key], value);
  } catch {
    // Without storage the return cannot be checked: the callback shows its error page.
  }
}

export function removeSessionItem(key: StorageKey): void {
  try {
    sessionStore()?.removeItem(STORAGE_KEYS[key]);
  } catch {
    // Nothing stored, nothing to remove.
  }
}
