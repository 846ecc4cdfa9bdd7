import { describe, expect, it, vi } from 'vitest';
import { deviceId, randomId, readCookie, xsrfToken } from './storage';

describe('device id (spec §3, §9)', () => {
  it('is created once, kept in local storage and reused', () => {
    expect(localStorage.getItem('deviceId')).toBeNull();
    const first = deviceId();
    expect(first).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(localStorage.getItem('deviceId')).toBe(first);
    expect(deviceId()).toBe(first);
  });

  it('keeps an id that is already stored', () => {
    localStorage.setItem('deviceId', 'AbCdEf123456');
    expect(deviceId()).toBe('AbCdEf123456');
  });

  it('replaces a stored value that is not a device id', () => {
    localStorage.setItem('deviceId', 'not an id');
    const id = deviceId();
    expect(id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(localStorage.getItem('deviceId')).toBe(id);
  });

  it('draws from the CSPRNG, dropping the bytes that would bias the alphabet', () => {
    const bytes = [255, 248, 0, 61, 62, 123, 247];
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      if (array instanceof Uint8Array) array.set(bytes.slice(0, array.length));
      return array;
    });
    // 255 and 248 are dropped; 0 → A, 61 → 9, 62 → A, 123 → 9, 247 → 9.
    expect(randomId(5)).toBe('A9A99');
  });
});

describe('cookies (spec §3, §7)', () => {
  it('reads and decodes one cookie out of many', () => {
    expect(readCookie('XSRF-TOKEN', 'a=1; XSRF-TOKEN=abc%3D%3D; b=2')).toBe('abc==');
    expect(readCookie('missing', 'a=1')).toBeUndefined();
  });

  it('reads the XSRF token under its exact name, whatever the environment (decision 0004)', () => {
    expect(xsrfToken()).toBeUndefined();
    document.cookie = 'XSRF-TOKEN_test=other';
    document.cookie = 'XSRF-TOKEN=token-1';
    expect(xsrfToken()).toBe('token-1');
  });
});
