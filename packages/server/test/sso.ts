import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_BASE, CALLS, ROUTES } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { listAuditEvents } from '../src/features/audit/audit.repo.js';
import { CLI_META } from '../src/features/audit/audit.service.js';
import { createOrganization } from '../src/features/organizations/organizations.service.js';
import { bindingCookieName } from '../src/features/sso/sso.binding.js';
import { addSamlConnection } from '../src/features/sso/sso.connections.js';
import { ssoUrls } from '../src/features/sso/sso.urls.js';
import { postJson } from './account-entry.js';
import { newDeviceId, type TestApp } from './helpers.js';
import { encode, idpMetadata, newId, readAuthnRequest, type AssertionOptions } from './saml-idp.js';

export const SSO_START_URL = API_BASE + CALLS.ssoStart.path;
export const TRANSFER_URL = API_BASE + CALLS.exchangeSSOTransferToken.path;

export function metadataFile(xml: string): string {
  const path = join(tmpdir(), `foyer-idp-${randomBytes(6).toString('hex')}.xml`);
  writeFileSync(path, xml);
  return path;
}

/** A fresh organisation claiming its own domain (SSO required) with a SAML connection. */
export async function samlOrganization(t: TestApp, options: { metadata?: string; allowUnsolicited?: boolean } = {}) {
  const domain = `corp-${randomBytes(4).toString('hex')}.example`;
  const org = await createOrganization(t.deps, { name: `Corp ${domain}`, domain, ssoRequired: true }, CLI_META);
  const { connection } = await addSamlConnection(
    t.deps,
    { org: org.id, metadata: metadataFile(options.metadata ?? idpMetadata()), allowUnsolicited: options.allowUnsolicited === true },
    CLI_META,
  );
  const urls = ssoUrls(t.config, connection.id);
  return { org, domain, connection, urls, email: (local = `p${randomBytes(4).toString('hex')}`) => `${local}@${domain}` };
}

const browserBindings = new WeakMap<TestApp, string>();

/**
 * The SSO binding cookie of the one browser a test app's requests stand for (sso.binding.ts): its
 * starts keep the value and its exchanges present it, as a browser's cookie jar would.
 */
export function testBrowserCookies(t: TestApp): Record<string, string> {
  let value = browserBindings.get(t);
  if (value === undefined) {
    value = randomBytes(32).toString('base64url');
    browserBindings.set(t, value);
  }
  return { [bindingCookieName(t.config)]: value };
}

export async function startSso(t: TestApp, email: string, state?: object): Promise<LightMyRequestResponse> {
  return postJson(t, SSO_START_URL, { email, ...(state === undefined ? {} : { state: JSON.stringify(state) }) }, { cookies: testBrowserCookies(t) });
}

/**
 * A SAML organisation, a started sign-in for one of its addresses, and the options of the IdP's
 * honest answer to it (signedResponse(base) signs that person in).
 */
export async function startedSaml(t: TestApp, options: { allowUnsolicited?: boolean; metadata?: string; state?: object } = {}) {
  const corp = await samlOrganization(t, options);
  const email = corp.email();
  const response = await startSso(t, email, options.state);
  expect(response.statusCode, response.body).toBe(200);
  const request = readAuthnRequest(response.json<{ url: string }>().url);
  const base: AssertionOptions = {
    acsUrl: corp.urls.acs,
    audience: corp.urls.entityId,
    nameId: `id-${newId()}`,
    email,
    givenName: 'Ada',
    familyName: 'Lovelace',
    inResponseTo: request.id,
    now: t.clock.now(),
  };
  return { corp, email, request, base, consumer: { id: corp.connection.id, acs: corp.urls.acs } };
}

export function postAcs(t: TestApp, acsUrl: string, xml: string, relayState?: string): Promise<LightMyRequestResponse> {
  const form = new URLSearchParams({ SAMLResponse: encode(xml), ...(relayState === undefined ? {} : { RelayState: relayState }) });
  return t.app.inject({
    method: 'POST',
    url: new URL(acsUrl).pathname,
    payload: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Where a provider's answer sent the browser: `/sso-landing` and its query. */
export function landing(response: LightMyRequestResponse): URLSearchParams {
  expect(response.statusCode, response.body).toBe(303);
  const location = new URL(String(response.headers.location), 'http://localhost');
  expect(location.pathname).toBe(ROUTES.ssoLanding);
  return location.searchParams;
}

const seenRefusals = new Map<string, number>();

/** The `sso.refused` audit entries of one connection, oldest first. */
export async function refusals(t: TestApp, connectionId: string): Promise<Array<{ code: string; reason: string }>> {
  const events = await listAuditEvents(t.db, { type: 'sso.refused' });
  return events
    .map((event) => JSON.parse(event.detail ?? '{}') as { code: string; reason: string; connectionId: string })
    .filter((detail) => detail.connectionId === connectionId);
}

/** The refusal landed on `/sso-landing?code=…` and added exactly one audit entry, with that code. */
export async function expectRefused(t: TestApp, connectionId: string, response: LightMyRequestResponse, code: string, reason?: string): Promise<void> {
  const params = landing(response);
  expect(params.get('code')).toBe(code);
  expect(params.get('transferToken')).toBeNull();
  const all = await refusals(t, connectionId);
  const withCode = all.filter((entry) => entry.code === code).length;
  expect(all.length, 'one new audit entry').toBe((seenRefusals.get(connectionId) ?? 0) + 1);
  expect(withCode, `one new audit entry with ${code}`).toBe((seenRefusals.get(`${connectionId} ${code}`) ?? 0) + 1);
  seenRefusals.set(connectionId, all.length);
  if (reason !== undefined) {
    const withReason = all.filter((entry) => entry.reason.includes(reason)).length;
    expect(withReason, `one new audit entry for "${reason}"`).toBe((seenRefusals.get(`${connectionId} ${reason}`) ?? 0) + 1);
    seenRefusals.set(`${connectionId} ${reason}`, withReason);
  }
  seenRefusals.set(`${connectionId} ${code}`, withCode);
}

/** What a sign-in writes: accounts, their identities, sessions, and single-use tokens (the transfer token among them). */
export async function accountRows(t: TestApp): Promise<Record<string, number>> {
  const tables = ['users', 'external_identities', 'sessions', 'email_tokens'] as const;
  const counts = await Promise.all(
    tables.map(async (table) => {
      const row = await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return [table, Number(row.n)] as const;
    }),
  );
  return Object.fromEntries(counts);
}

/** Runs `work` and checks it wrote no user, identity, session or token row. */
export async function writesNoAccount<T>(t: TestApp, work: () => Promise<T>): Promise<T> {
  const before = await accountRows(t);
  const result = await work();
  expect(await accountRows(t), 'no user, identity, session or token row written').toEqual(before);
  return result;
}

/**
 * Posts a response to a connection's assertion consumer and checks it was refused: the landing
 * page with the code, one new audit entry (with the reason, when given), no 5xx, and no account,
 * identity, session or transfer token written.
 */
export async function postRefused(t: TestApp, connection: { id: string; acs: string }, xml: string, code: string, reason?: string): Promise<void> {
  const response = await writesNoAccount(t, () => postAcs(t, connection.acs, xml));
  await expectRefused(t, connection.id, response, code, reason);
}

/** The web's `/ssol/:transferToken` exchange, from the browser that started the sign-in (or `cookies`: another one). */
export async function exchange(
  t: TestApp,
  transferToken: string,
  cookies: Record<string, string> = testBrowserCookies(t),
): Promise<LightMyRequestResponse> {
  return postJson(t, TRANSFER_URL, { token: transferToken, deviceId: newDeviceId() }, { cookies });
}
