// The three load scenarios, spoken in each system's own API: a sign-in with the correct password,
// a failed sign-in, and a session check. Each comes with a check of every answer.
import { createHash, createHmac, randomBytes } from 'node:crypto';

/** The seeded accounts: the same emails and passwords in Foyer and in the peer. */
export function benchUsers(count) {
  return Array.from({ length: count }, (_, i) => ({
    email: `bench-user-${i}@example.com`,
    password: `Bench password ${i}!`,
    firstName: 'Bench',
    lastName: `User ${i}`,
    // Foyer binds a session to a 12-character device id (spec §3).
    deviceId: `benchdevice${String.fromCharCode(65 + (i % 26))}`,
  }));
}

const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');

/** Unknown emails that no account has and that no run repeats, so no email reaches a lockout. */
function unknownEmails() {
  const run = randomBytes(4).toString('hex');
  let next = 0;
  return () => `nobody-${run}-${next++}@example.com`;
}

function setCookieValue(response, name) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const index = pair.indexOf('=');
    if (pair.slice(0, index).trim() === name) return pair.slice(index + 1);
  }
  return undefined;
}

async function call(url, { method = 'GET', headers = {}, body } = {}) {
  const response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  return { response, status: response.status, text: await response.text() };
}

/** Sends one request of a scenario and checks its answer, before the load is started. */
export async function preflight(scenario) {
  const body = scenario.bodies ? scenario.bodies[scenario.bodies.length - 1] : typeof scenario.body === 'function' ? scenario.body() : scenario.body;
  const { status, text } = await call(scenario.url, { method: scenario.method, headers: scenario.headers, body });
  if (!scenario.expect(status, text)) throw new Error(`${scenario.method} ${scenario.url} answered ${status} ${text.slice(0, 300)}`);
}

/**
 * A forum's DiscourseConnect request as Discourse sends it: base64 of a fresh nonce and the
 * return URL (with Ruby's line feeds), and its HMAC-SHA256 (decision 0021).
 */
export function forumRequestBody(forum) {
  const query = new URLSearchParams([
    ['nonce', randomBytes(16).toString('hex')],
    ['return_sso_url', `${forum.origin}/session/sso_login`],
  ]).toString();
  const ssoPayload = `${Buffer.from(query)
    .toString('base64')
    .replace(/(.{60})/g, '$1\n')}\n`;
  return JSON.stringify({ ssoPayload, signature: createHmac('sha256', forum.secret).update(ssoPayload, 'utf8').digest('hex') });
}

/** A forum sign-in's answer: 200, terms agreed, and the signed redirect back to the forum. */
const forumAnswered = (forum) => (status, text) => status === 200 && text.startsWith('{"termsAgreed":true,"redirectUrl":"' + forum.origin);

export const foyer = {
  name: 'Foyer',
  /** Takes the XSRF token the server issues, and signs in once for the session scenario. */
  async scenarios(baseUrl, users, { cookieName, forum }) {
    const probe = await call(`${baseUrl}/api/account/session`);
    const xsrf = setCookieValue(probe.response, 'XSRF-TOKEN');
    if (!xsrf) throw new Error(`GET /api/account/session issued no XSRF-TOKEN cookie (HTTP ${probe.status})`);
    const postHeaders = { 'content-type': 'application/json', cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf };
    const signinUrl = `${baseUrl}/api/account/signin`;
    const bodies = users.map((user) => JSON.stringify({ email: user.email, hashPassword: sha256Hex(user.password), deviceId: user.deviceId }));
    const nextUnknown = unknownEmails();
    const wrongHash = sha256Hex('not the password');

    const [first] = users;
    const signedIn = await call(signinUrl, { method: 'POST', headers: postHeaders, body: bodies[0] });
    if (signedIn.status !== 200) throw new Error(`sign-in of a seeded account answered ${signedIn.status} ${signedIn.text}`);
    const token = JSON.parse(signedIn.text).otter;
    const cookie = setCookieValue(signedIn.response, cookieName);
    if (cookie !== token) throw new Error(`sign-in set no ${cookieName} cookie equal to the body's otter`);

    // The forum round trip, as a signed-in native client asks it (Authorization and X-DeviceId),
    // after the account has accepted the forum's terms once.
    const forumHeaders = { ...postHeaders, authorization: `Bearer ${token}`, 'x-deviceid': first.deviceId };
    const agreed = await call(`${baseUrl}/api/community/termsAgreed`, { method: 'POST', headers: forumHeaders, body: '{}' });
    if (agreed.status !== 200) throw new Error(`community/termsAgreed answered ${agreed.status} ${agreed.text}`);

    return {
      forum: {
        method: 'POST',
        url: `${baseUrl}/api/community/discourseSso`,
        headers: forumHeaders,
        body: () => forumRequestBody(forum),
        expect: forumAnswered(forum),
      },
      signin: {
        method: 'POST',
        url: signinUrl,
        headers: postHeaders,
        bodies,
        expect: (status, text) => status === 200 && text.startsWith('{"otter":"'),
      },
      signinFailed: {
        method: 'POST',
        url: signinUrl,
        headers: postHeaders,
        body: () => JSON.stringify({ email: nextUnknown(), hashPassword: wrongHash, deviceId: first.deviceId }),
        expect: (status, text) => status === 401 && text.includes('"invalidCredentials"'),
      },
      session: {
        method: 'GET',
        url: `${baseUrl}/api/account/session`,
        headers: { cookie: `${cookieName}=${token}; XSRF-TOKEN=${xsrf}`, 'x-deviceid': first.deviceId },
        expect: (status, text) => status === 200 && text.startsWith('{"user":{') && text.includes(first.email),
      },
    };
  },
};

export const betterAuth = {
  name: 'Better Auth',
  async scenarios(baseUrl, users) {
    const origin = baseUrl;
    const postHeaders = { 'content-type': 'application/json', origin };
    const signinUrl = `${baseUrl}/api/auth/sign-in/email`;
    const bodies = users.map((user) => JSON.stringify({ email: user.email, password: user.password }));
    const nextUnknown = unknownEmails();
    const [first] = users;

    const signedIn = await call(signinUrl, { method: 'POST', headers: postHeaders, body: bodies[0] });
    if (signedIn.status !== 200) throw new Error(`sign-in of a seeded account answered ${signedIn.status} ${signedIn.text}`);
    const cookie = setCookieValue(signedIn.response, 'better-auth.session_token');
    if (!cookie) throw new Error('sign-in set no better-auth.session_token cookie');

    return {
      signin: {
        method: 'POST',
        url: signinUrl,
        headers: postHeaders,
        bodies,
        expect: (status, text) => status === 200 && text.includes('"token":"'),
      },
      signinFailed: {
        method: 'POST',
        url: signinUrl,
        headers: postHeaders,
        body: () => JSON.stringify({ email: nextUnknown(), password: 'not the password' }),
        expect: (status, text) => status === 401 && text.includes('INVALID_EMAIL_OR_PASSWORD'),
      },
      session: {
        method: 'GET',
        url: `${baseUrl}/api/auth/get-session`,
        headers: { cookie: `better-auth.session_token=${cookie}` },
        // An unknown or expired session is a 200 with `null`: the body tells them apart.
        expect: (status, text) => status === 200 && text.startsWith('{"session":{') && text.includes(first.email),
      },
    };
  },
};
