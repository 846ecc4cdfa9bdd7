import { API_BASE, CALLS, DEVICE_ID_HEADER, type ErrorBody } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { WALKED_CALLS, isServed, sendCall, validInput } from '../../test/contract-walk.js';
import { createTestUser, dbUnavailable, getSession, sessionCookieName, signIn, signInUrl, useTestApp } from '../../test/helpers.js';
import { listAuditEvents } from '../features/audit/audit.repo.js';

/**
 * NUL (which PostgreSQL refuses in text: a 500, and only on the paths that store the value, so
 * an oracle), other C0 controls, DEL, a C1 control (NEL) and a lone surrogate (also refused by
 * PostgreSQL).
 */
const CONTROL_CHARACTERS = ['\u0000', '\u0001', '\u001b', '\u007f', '\u0085', '\ud800'];

/** Puts the character in place of the fourth one, so a fixed-length value keeps its length. */
function spoil(value: unknown, character: string): string {
  const text = typeof value === 'string' ? value : 'Sample';
  return text.slice(0, 3) + character + text.slice(4);
}

const WITH_INPUT = WALKED_CALLS.filter((walked) => walked.fields.some((field) => field.type === 'string'));

describe.skipIf(dbUnavailable)('control characters in a request', () => {
  const t = useTestApp();

  it('the walk reaches every call that takes text', () => {
    expect(WITH_INPUT.map((walked) => walked.name)).toEqual(
      expect.arrayContaining(['signin', 'signup', 'setupAccountFields', 'setupAccount', 'resetPassword']),
    );
  });

  it.for(WITH_INPUT)('$name: the sample input passes validation, so each refusal below is the field itself', async ({ name, call, fields }, context) => {
    // A call declared for a later capability has no route yet; the contract's test walks its schema.
    if (call.issue !== undefined) context.skip(!isServed(t, call), `${name} is not served yet`);
    const response = await sendCall(t, call, validInput({ name, call, fields }));
    expect(response.statusCode).toBeLessThan(500);
    expect(response.json<ErrorBody>().errorMessage, response.body).not.toBe('invalidRequest');
  });

  it.for(WITH_INPUT)('$name: every text field with a control character gets 400 invalidRequest naming it', async (walked, context) => {
    if (walked.call.issue !== undefined) context.skip(!isServed(t, walked.call), `${walked.name} is not served yet`);
    for (const field of walked.fields.filter((candidate) => candidate.type === 'string')) {
      for (const character of CONTROL_CHARACTERS) {
        const input = validInput(walked);
        input[field.part][field.name] = spoil(input[field.part][field.name], character);
        const response = await sendCall(t, walked.call, input);
        const label = `${field.part}.${field.name} with ${JSON.stringify(character)}`;
        expect(response.statusCode, label).toBe(400);
        const body = response.json<ErrorBody>();
        expect(body.errorMessage, label).toBe('invalidRequest');
        // A lone surrogate cannot be written as UTF-8 in a URL: the path is refused before routing.
        if (!(field.part === 'params' && character === '\ud800')) expect(body.fields, label).toContain(field.name);
      }
    }
  });

  it('nothing is written for a refused sign-up', async () => {
    const signup = WALKED_CALLS.find((walked) => walked.name === 'signup');
    if (signup === undefined) throw new Error('signup is not in the contract');
    const input = validInput(signup);
    input.body.firstName = 'Ann\u0000Lee';
    const auditBefore = (await listAuditEvents(t.db)).length;
    expect((await sendCall(t, CALLS.signup, input)).statusCode).toBe(400);
    expect(await t.db.selectFrom('users').select('id').where('email', '=', String(input.body.email)).execute()).toEqual([]);
    expect(await listAuditEvents(t.db)).toHaveLength(auditBefore);
  });

  it('a NUL in X-DeviceId is refused with 400 before any session lookup', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, account);
    const response = await getSession(t, otter, `${deviceId.slice(0, 6)}\u0000${deviceId.slice(7)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json<ErrorBody>()).toEqual({ errorMessage: 'invalidRequest', fields: [DEVICE_ID_HEADER.toLowerCase()] });
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
  });

  it('a control character in User-Agent is refused and never reaches the audit trail', async () => {
    const account = await createTestUser(t);
    const before = (await listAuditEvents(t.db)).length;
    const response = await t.app.inject({
      method: 'POST',
      url: signInUrl(),
      cookies: { 'XSRF-TOKEN': 'x'.repeat(43) },
      headers: { 'X-XSRF-TOKEN': 'x'.repeat(43), 'user-agent': 'Mozilla\u0000/5.0' },
      payload: { email: account.email, hashPassword: 'a'.repeat(64), deviceId: 'abcdefghijkl' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<ErrorBody>().fields).toEqual(['user-agent']);
    expect(await listAuditEvents(t.db)).toHaveLength(before);
  });

  it('a session cookie decoded to a NUL is no session, never a 5xx', async () => {
    const cookies = { [sessionCookieName(t.config)]: `${'A'.repeat(20)}\u0000${'A'.repeat(22)}` };
    const session = await t.app.inject({ method: 'GET', url: API_BASE + CALLS.session.path, cookies, headers: { [DEVICE_ID_HEADER]: 'abcdefghijkl' } });
    expect(session.statusCode).toBe(401);
    expect(session.json<ErrorBody>().errorMessage).toBe('notSignedIn');
    const signout = await sendCall(t, CALLS.signout, { body: {}, params: {} }, { cookies });
    expect(signout.statusCode).toBe(200);
  });
});
