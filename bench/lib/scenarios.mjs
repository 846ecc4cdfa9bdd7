// The load scenarios, spoken in each system's own API: a sign-in with the correct password, a
// failed sign-in and a session check on both; on Foyer also the forum's DiscourseConnect round
// trip, the Google callback and the SAML assertion consumer. Each comes with a check of every answer.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ProviderBrowser } from './google-consent.mjs';
import { Prepared } from './prepared.mjs';
import { authnRequestId, signedResponse } from './saml-idp.mjs';

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
  await scenario.prepare?.(0);
  const body = scenario.bodies ? scenario.bodies[scenario.bodies.length - 1] : typeof scenario.body === 'function' ? scenario.body() : scenario.body;
  const { response, status, text } = await call(scenario.url, { method: scenario.method, headers: scenario.headers, body });
  if (!scenario.expect(status, text, Object.fromEntries(response.headers))) {
    throw new Error(`${scenario.method} ${scenario.url} answered ${status} ${response.headers.get('location') ?? ''} ${text.slice(0, 300)}`);
  }
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

/**
 * Google sign-in's callback (decision 0019), one per request: `account/socialAuth/exchange` with a
 * code and state obtained beforehand (the state started with `account/socialAuth`, the code from
 * the provider), so that each request spends its state, exchanges the code at the provider's
 * token endpoint over https (PKCE, client_secret_basic), validates the ID token and starts a
 * session. The seeded accounts take turns; the first Google sign-in of each, which links it to its
 * Google identity, is made here and not measured. The Google floor (peer/google-floor-server.mjs)
 * answers the same two calls and is loaded the same way.
 */
export async function googleCallback(baseUrl, users, postHeaders, google) {
  const browser = new ProviderBrowser({ ca: google.ca, redirectUri: google.redirectUri });
  let turn = 0;
  const nextCallback = async (user = users[turn++ % users.length]) => {
    const state = randomBytes(24).toString('base64url');
    const started = await call(`${baseUrl}/api/account/socialAuth`, { method: 'POST', headers: postHeaders, body: JSON.stringify({ state }) });
    if (started.status !== 200) throw new Error(`account/socialAuth answered ${started.status} ${started.text.slice(0, 300)}`);
    const answer = await browser.authorize(JSON.parse(started.text).url, user.email);
    if (answer.state !== state) throw new Error('the Google provider sent back another state');
    return JSON.stringify({ authorizationCode: answer.code, state, deviceId: user.deviceId });
  };
  const url = `${baseUrl}/api/account/socialAuth/exchange`;
  const expect = (status, text) => status === 200 && text.startsWith('{"wasSignUp":false,"otter":"');
  for (const user of users) {
    const linked = await call(url, { method: 'POST', headers: postHeaders, body: await nextCallback(user) });
    if (!expect(linked.status, linked.text)) {
      throw new Error(`the first Google sign-in of ${user.email} answered ${linked.status} ${linked.text.slice(0, 300)}`);
    }
  }
  const prepared = new Prepared(() => nextCallback());
  return { method: 'POST', url, headers: postHeaders, body: () => prepared.take(), prepare: (seconds) => prepared.fill(seconds), expect };
}

/**
 * A SAML connection's assertion consumer (decision 0022), one response per request, as the IdP's
 * page posts it (a form, no cookies): each answers its own AuthnRequest, started beforehand with
 * the SSO start call (so its InResponseTo names a waiting request), with its own response and
 * assertion IDs, signed beforehand by the harness's IdP. The answer is the landing page with a
 * transfer token. `count` members of the organisation take turns; the first response of each,
 * which makes their account, is posted here and not measured, and is kept (`signedResponses`)
 * for the XML-signature floor.
 */
async function samlConsumer(baseUrl, postHeaders, saml, count) {
  const members = Array.from({ length: count }, (_, i) => ({ nameId: `bench-member-${i}`, email: `bench-member-${i}@${saml.domain}` }));
  let turn = 0;
  const nextResponse = async (member = members[turn++ % members.length]) => {
    const body = JSON.stringify({ email: member.email });
    const started = await call(`${baseUrl}/api/account/sso/start`, { method: 'POST', headers: postHeaders, body });
    if (started.status !== 200) throw new Error(`account/sso/start answered ${started.status} ${started.text.slice(0, 300)}`);
    const inResponseTo = authnRequestId(JSON.parse(started.text).url);
    return new URLSearchParams({
      SAMLResponse: signedResponse(saml.idp, { acsUrl: saml.acsUrl, audience: saml.entityId, person: member, inResponseTo }),
    }).toString();
  };
  const url = `${baseUrl}${new URL(saml.acsUrl).pathname}`;
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const expect = (status, _text, answer) => status === 303 && String(answer?.location).startsWith('/sso-landing?transferToken=');
  const signedResponses = [];
  for (const member of members) {
    const body = await nextResponse(member);
    const first = await call(url, { method: 'POST', headers, body });
    if (!expect(first.status, first.text, Object.fromEntries(first.response.headers))) {
      throw new Error(`the first SAML response of ${member.email} answered ${first.status} ${first.response.headers.get('location')}`);
    }
    signedResponses.push(new URLSearchParams(body).get('SAMLResponse'));
  }
  const prepared = new Prepared(() => nextResponse());
  return { method: 'POST', url, headers, body: () => prepared.take(), prepare: (seconds) => prepared.fill(seconds), expect, signedResponses };
}

export const foyer = {
  name: 'Foyer',
  /**
   * Takes the XSRF token the server issues, and signs in once for the session scenario. With
   * `google` (its provider) and `saml` (an organisation's connection), their scenarios too.
   */
  async scenarios(baseUrl, users, { cookieName, forum, google, saml }) {
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
      ...(google ? { google: await googleCallback(baseUrl, users, postHeaders, google) } : {}),
      ...(saml ? { saml: await samlConsumer(baseUrl, postHeaders, saml, users.length) } : {}),
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
