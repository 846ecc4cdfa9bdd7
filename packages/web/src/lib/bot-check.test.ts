import { afterEach, describe, expect, it, vi } from 'vitest';
import { botCheckToken, preloadBotCheck } from './bot-check';

function recaptchaScripts() {
  return [...document.querySelectorAll<HTMLScriptElement>('script[src*="recaptcha"]')];
}

afterEach(() => {
  // A script that never loaded keeps the page's one pending load: failing it starts the next test afresh.
  for (const script of recaptchaScripts()) {
    script.dispatchEvent(new Event('error'));
    script.remove();
  }
  vi.useRealTimers();
});

describe('invisible bot check (spec §5)', () => {
  it('does nothing without a site key', async () => {
    preloadBotCheck(undefined);
    expect(await botCheckToken(undefined, 'signup')).toBeUndefined();
    expect(await botCheckToken('', 'signup')).toBeUndefined();
    expect(recaptchaScripts()).toEqual([]);
  });

  it('adds Google’s script once, for the configured key', () => {
    preloadBotCheck('key/1');
    preloadBotCheck('key/1');
    expect(recaptchaScripts().map((script) => script.src)).toEqual(['https://www.google.com/recaptcha/api.js?render=key%2F1']);
  });

  it('asks for a token for the action once the script is ready', async () => {
    const execute = vi.fn(() => Promise.resolve('token-1'));
    vi.stubGlobal('grecaptcha', { ready: (callback: () => void) => setTimeout(callback, 5), execute });
    expect(await botCheckToken('key-1', 'forgot_password')).toBe('token-1');
    expect(execute).toHaveBeenCalledWith('key-1', { action: 'forgot_password' });
  });

  it('sends no token when the script is blocked, and tries again next time', async () => {
    const first = botCheckToken('key-2', 'signup');
    const [script] = recaptchaScripts();
    script?.dispatchEvent(new Event('error'));
    expect(await first).toBeUndefined();

    void botCheckToken('key-2', 'signup');
    expect(recaptchaScripts()).toHaveLength(2);
  });

  it('gives up on a check that never answers', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('grecaptcha', { ready: () => undefined, execute: vi.fn() });
    const token = botCheckToken('key-3', 'signup');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await token).toBeUndefined();
  });
});
