import { API_BASE, CALLS, langPath } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { WALKED_CALLS, isServed, sendCall, validInput } from '../../test/contract-walk.js';
import { createTestUser, dbUnavailable, getSession, postSignIn, signIn, useTestApp } from '../../test/helpers.js';

/** Personal answers must not be kept by a shared cache or the browser history (ASVS V14.3.2). */
describe.skipIf(dbUnavailable)('Cache-Control on API answers', () => {
  const t = useTestApp();

  it.for(WALKED_CALLS)('$name answers with no-store, valid input or not', async (walked, context) => {
    if (walked.call.issue !== undefined) context.skip(!isServed(t, walked.call), `${walked.name} is not served yet`);
    const answers = [
      await sendCall(t, walked.call, validInput(walked)),
      // An empty body: 400 on calls that take input, whatever the call answers otherwise.
      await sendCall(t, walked.call, { body: {}, params: { id: 'x' } }),
    ];
    for (const response of answers) expect(response.headers['cache-control'], `${response.statusCode} ${response.body}`).toBe('no-store');
  });

  it('the answers that carry the session token or the account are no-store', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId, response: signin } = await signIn(t.app, account);
    expect(signin.statusCode).toBe(200);
    expect(signin.headers['cache-control']).toBe('no-store');
    const session = await getSession(t, otter, deviceId);
    expect(session.statusCode).toBe(200);
    expect(session.headers['cache-control']).toBe('no-store');
  });

  it('error answers are no-store: wrong password, XSRF refusal, unknown path, malformed URL', async () => {
    const account = await createTestUser(t);
    const answers = [
      await postSignIn(t.app, { email: account.email, password: 'wrong password' }),
      await t.app.inject({ method: 'POST', url: API_BASE + CALLS.signout.path, payload: {} }),
      await t.app.inject({ method: 'GET', url: `${API_BASE}/account/nothing-here` }),
      await t.app.inject({ method: 'GET', url: `${API_BASE}/account/%` }),
    ];
    expect(answers.map((response) => response.statusCode)).toEqual([401, 403, 404, 400]);
    for (const response of answers) expect(response.headers['cache-control'], response.body).toBe('no-store');
  });

  it('public files outside the API keep their own caching', async () => {
    const response = await t.app.inject({ method: 'GET', url: langPath('en') });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).not.toBe('no-store');
  });
});
