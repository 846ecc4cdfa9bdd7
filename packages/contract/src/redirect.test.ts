import { describe, expect, it } from 'vitest';
import { isAllowedRedirect, safeRedirect } from './redirect.js';

const policy = { ownHosts: ['app.foyer.example', 'community.foyer.example', 'localhost:8080', 'forum.localhost:4200', '127.0.0.1:4200', '[::1]:4200'] };

describe('redirect allow-list (spec §5)', () => {
  it.each([
    '/home',
    '/home?tab=snippets#top',
    '/discourse-sso?sso=abc%3D&sig=0a1b',
    // Discourse's payload with its signed line feed, escaped (decision 0021).
    '/discourse-sso?sso=bm9uY2U9Y2I2ODI1MWVlZmI1MjExZTU4YzAwZmYxMzk1ZjBjMGI%3D%0A&sig=2828aa',
    'foyer://signin?otter=x',
    'FOYER://signin',
    'foyer-local://callback',
    'https://app.foyer.example/groups',
    'https://APP.foyer.example/groups',
    'http://localhost:8080/home',
    // Plain http on this machine: localhost's own subdomains (RFC 6761), 127.0.0.1 and [::1].
    'http://forum.localhost:4200/session/sso_login',
    'http://127.0.0.1:4200/x',
    'http://[::1]:4200/x',
  ])('accepts %s', (target) => {
    expect(isAllowedRedirect(target, policy)).toBe(true);
  });

  it.each([
    ['protocol-relative', '//evil.example'],
    ['protocol-relative with path', '//evil.example/home'],
    ['backslash', '/\\evil.example'],
    ['backslash, both', '\\\\evil.example'],
    ['tab trick', '/\t/evil.example'],
    ['newline trick', '/\n/evil.example'],
    ['encoded slash', '/%2F%2Fevil.example'],
    ['encoded slash lower case', '/%2f%2fevil.example'],
    ['double-encoded slash', '/%252F%252Fevil.example'],
    ['encoded backslash', '/%5Cevil.example'],
    ['javascript', 'javascript:alert(1)'],
    ['mixed-case javascript', 'JaVaScRiPt:alert(1)'],
    ['javascript with leading space', ' javascript:alert(1)'],
    ['data url', 'data:text/html,<script>alert(1)</script>'],
    ['vbscript', 'vbscript:msgbox(1)'],
    ['user-info trick', 'https://app.foyer.example@evil.example/'],
    ['user-info with password', 'https://app.foyer.example:x@evil.example/'],
    ['user-info on own host', 'https://evil@app.foyer.example/'],
    ['suffix host', 'https://app.foyer.example.evil.example/'],
    ['prefix host', 'https://evilapp.foyer.example/'],
    ['other host', 'https://evil.example/'],
    ['plain http to own site', 'http://app.foyer.example/'],
    ['plain http to a host that only ends in localhost', 'http://evil-localhost:4200/'],
    ['own host, other port', 'https://app.foyer.example:8443/'],
    ['schemeless host', 'evil.example/home'],
    ['empty', ''],
    ['scheme only', 'https:'],
    ['scheme-relative backslash', 'https:\\\\evil.example'],
    ['app scheme with newline', 'foyer://x\n'],
    ['malformed escape', '/%E0%A4%A'],
    ['escaped newline in the path', '/%0A/evil.example'],
    ['escaped tab in the path before a query', '/%09/evil.example?sso=a%0A'],
    ['raw newline in the query', '/discourse-sso?sso=a\n&sig=b'],
  ])('refuses %s', (_, target) => {
    expect(isAllowedRedirect(target, policy)).toBe(false);
  });

  it('refuses what is not a string', () => {
    expect(isAllowedRedirect(undefined, policy)).toBe(false);
    expect(isAllowedRedirect(['/home'], policy)).toBe(false);
    expect(isAllowedRedirect({ toString: () => '/home' }, policy)).toBe(false);
  });

  it('refuses an overlong target', () => {
    expect(isAllowedRedirect(`/${'a'.repeat(3000)}`, policy)).toBe(false);
  });

  it('safeRedirect gives the target or nothing', () => {
    expect(safeRedirect('/home', policy)).toBe('/home');
    expect(safeRedirect('//evil.example', policy)).toBeUndefined();
  });
});
