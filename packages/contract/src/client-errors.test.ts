import { describe, expect, it } from 'vitest';
import { clientErrorRoute, scrubClientErrorText } from './client-errors.js';

const TOKEN = 'q9XkV2mB7nR4tY6uI1oP3aS5dF8gH0jK';
const DIGEST = 'b0e0ec7fa0a89577c9341c16cff870789221b310a02cc465f464789407f83f377';

describe('scrubbing an error report (decision 0026)', () => {
  it.each([
    ['an email address', 'no account for ann.lee+x@mail.example.co.uk here', 'no account for [email] here'],
    ['a query string', 'GET https://auth.example.com/discourse-sso?sso=abc&sig=def failed', 'GET https://auth.example.com/discourse-sso?[query] failed'],
    ['a fragment with values', 'at /social-auth-callback#code=4/0Ab&state=xyz', 'at /social-auth-callback#[query]'],
    ['a password as name and value', 'body {"hashPassword":"abc","password": "hunter2"}', 'body {"hashPassword":"[redacted]","password": "[redacted]"}'],
    ['a bearer token', 'Authorization: Bearer abc.def', 'Authorization: [redacted] [redacted]'],
    ['a short token in a link path', 'at /reset-password/abc/x and /ssol/t1', 'at /reset-password/[token]/x and /ssol/[token]'],
    ['a long base64url run', `token ${TOKEN} expired`, 'token [token] expired'],
    ['a SHA-256 digest', `digest ${DIGEST}`, 'digest [token]'],
    ['a JWT', `jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${TOKEN}`, 'jwt [token].[token].[token]'],
  ])('takes out %s', (_, text, scrubbed) => {
    expect(scrubClientErrorText(text)).toBe(scrubbed);
  });

  it('keeps what explains the error: names, words, file names, lines and columns', () => {
    const stack = [
      "TypeError: Cannot read properties of undefined (reading 'focus')",
      '    at SignInForm (https://auth.example.com/assets/first-load-B3x9kQ1a.js:12:3456)',
      '    at renderWithHooks (https://auth.example.com/assets/first-load-B3x9kQ1a.js:1:99)',
      'Password must be at least 8 characters',
    ].join('\n');
    expect(scrubClientErrorText(stack)).toBe(stack);
  });
});

describe('the route a report names', () => {
  it.each([
    ['/sign-in', '/sign-in'],
    ['/sign-in/', '/sign-in'],
    [`/reset-password/${TOKEN}`, '/reset-password/:token'],
    [`/ssol/${TOKEN}`, '/ssol/:transferToken'],
    [`/verify-new-email/${TOKEN}`, '/verify-new-email/:token'],
    ['/home', '/home'],
    ['/', 'unknown'],
    [`/reset-password/${TOKEN}/more`, 'unknown'],
    ['/elsewhere', 'unknown'],
  ])('%s is %s', (path, route) => {
    expect(clientErrorRoute(path)).toBe(route);
  });
});
