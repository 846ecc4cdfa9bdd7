import { RANDOM_ID_PATTERN } from '@foyer/contract/core';
import { fetchAnswer } from '../../lib/answers';
import { removeItem, readItem, writeItem } from '../../lib/storage';

/** The stored device id, when there is a well-formed one: both credentials are bound to it. */
function storedDeviceId(): string | undefined {
  const device = readItem('deviceId');
  return device !== null && RANDOM_ID_PATTERN.test(device) ? device : undefined;
}

/** The stored device token, when it goes with a stored device id (spec §4). */
export function storedDeviceToken(): string | undefined {
  const token = readItem('deviceToken');
  return storedDeviceId() === undefined || token === null || token === '' ? undefined : token;
}

/**
 * Spec §4's credential lookup for the forum calls (decision 0030): a device id and a device token
 * → the device token; otherwise a device id and a one-time sign-in token → exchanged once for a
 * device token (`exchange/otterToken`), which is stored while the one-time token is cleared;
 * otherwise nothing, and the calls go with the browser's own session cookie as before.
 *
 * A refused one-time token (spent, expired, of another device) can never work, so it is cleared
 * too; a transport failure keeps it for the next visit, since it was perhaps never presented.
 */
export async function forumCredential(): Promise<string | undefined> {
  const device = storedDeviceId();
  if (device === undefined) return undefined;
  const stored = storedDeviceToken();
  if (stored !== undefined) return stored;
  // Under its own key (decision 0030), or under spec §3's `otter`, where an app written from the
  // spec keeps it (the web app never stores a session token from script, so nothing else is there).
  const key = (readItem('otterToken') ?? '') === '' ? 'otter' : 'otterToken';
  const oneTime = readItem(key);
  if (oneTime === null || oneTime === '') return undefined;
  const result = await fetchAnswer('exchangeOtterToken', { body: { otterToken: oneTime, deviceId: device } });
  if (result.ok) {
    writeItem('deviceToken', result.data.deviceToken);
    removeItem(key);
    return result.data.deviceToken;
  }
  if (result.code === 'invalidToken' || result.code === 'tokenExpired' || result.code === 'invalidRequest') removeItem(key);
  return undefined;
}
