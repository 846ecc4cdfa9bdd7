import { describe, expect, it } from 'vitest';
import { FORUM_ENV } from '../../test/community.js';
import { createTestUser, dbUnavailable, sessionCookieName, signIn, useTestApp, xsrf } from '../../test/helpers.js';

/**
 * Every route the service documents (its OpenAPI document), and the local dev mailbox, which it
 * does not, given what an attacker or a broken client sends: control characters in path
 * parameters and query strings (a NUL reached PostgreSQL, which refuses it in text, as a 500 on
 * two routes outside the contract), bodies of the wrong shape or type, malformed and deeply nested
 * JSON, and forms where JSON is expected. Signed out and signed in. Whatever the route, the answer
 * is a 4xx, a redirect or an answer, never a 5xx. The contract's own calls are walked field by
 * field in control-characters.test.ts.
 */
const PATH_VALUES = ['%00', 'a%01b', '%7F', '%C2%85', '%E2%80%A8', '%ED%A0%80', '%FF', 'x'.repeat(300), '..%2F..%2Fetc', '%20'];
const QUERY = '?to=%00&code=%00&state=a%01&error=%00&returnUrl=%00&q=%ED%A0%80';
const BODIES: Array<{ type: string; payload: string }> = [
  { type: 'application/json', payload: '{"email":"a\\u0000b","token":"\\u0000","id":"\\ud800"}' },
  { type: 'application/json', payload: '[]' },
  { type: 'application/json', payload: 'null' },
  { type: 'application/json', payload: '"text"' },
  { type: 'application/json', payload: '{' },
  { type: 'application/json', payload: `${'['.repeat(3000)}${']'.repeat(3000)}` },
  { type: 'application/json', payload: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}' },
  { type: 'application/x-www-form-urlencoded', payload: 'SAMLResponse=%00&RelayState=%00&a=%ED%A0%80' },
  { type: 'text/plain', payload: '\u0000' },
];
/** Hidden from the document, served locally: its search and message id reached the database. */
const UNDOCUMENTED = ['/dev/mailbox', '/dev/mailbox.json', '/dev/mailbox/{id}'];

describe.skipIf(dbUnavailable)('hostile input on every route: never a 5xx', () => {
  const t = useTestApp({ env: { FOYER_ENV: 'local', RATE_LIMITS: 'off', ...FORUM_ENV } });

  function routes(): Array<{ method: string; path: string }> {
    const documented = Object.entries((t.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
    );
    return [...documented, ...UNDOCUMENTED.map((path) => ({ method: 'GET', path }))];
  }

  async function sweep(headers: Record<string, string>, cookies: Record<string, string>): Promise<string[]> {
    const failures: string[] = [];
    const send = async (method: string, url: string, body?: { type: string; payload: string }) => {
      const pair = xsrf();
      const response = await t.app.inject({
        method: method as 'GET' | 'POST',
        url,
        cookies: { ...pair.cookies, ...cookies },
        headers: { ...pair.headers, ...headers, ...(body === undefined ? {} : { 'content-type': body.type }) },
        ...(body === undefined ? {} : { payload: body.payload }),
      });
      if (response.statusCode >= 500)
        failures.push(`${method} ${url} ${body?.payload.slice(0, 40) ?? ''} → ${response.statusCode} ${response.body.slice(0, 120)}`);
    };
    for (const { method, path } of routes()) {
      const urls = path.includes('{') ? PATH_VALUES.map((value) => path.replace(/\{[^}]+\}/g, value)) : [path];
      for (const url of urls) {
        await send(method, url);
        await send(method, `${url}${QUERY}`);
      }
      if (method === 'POST') for (const body of BODIES) await send(method, urls[0] ?? path, body);
    }
    return failures;
  }

  it('covers the documented routes, the SSO consumers among them, and the dev mailbox', () => {
    const paths = routes().map((route) => route.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/api/account/signin', '/sso/saml/{connectionId}/acs', '/sso/oidc/{connectionId}/callback', '/dev/mailbox/{id}']),
    );
  });

  it('signed out', async () => {
    expect(await sweep({}, {})).toEqual([]);
  });

  it('signed in, with the session cookie and the device id', async () => {
    const account = await createTestUser(t, { verified: true });
    const { otter, deviceId } = await signIn(t.app, account);
    expect(await sweep({ 'x-deviceid': deviceId }, { [sessionCookieName(t.config)]: otter })).toEqual([]);
  });
});
