import { API_BASE, CALLS, ROUTES, callUrl } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { openMail, outboxKeyOf } from '../src/features/mail/outbox.crypto.js';
import { listOutbox, type OutboxRow } from '../src/features/mail/outbox.repo.js';
import { unitOfWork } from '../src/lib/unit-of-work.js';
import { issueToken } from '../src/features/tokens/tokens.js';
import { sha256Hex } from '../src/lib/crypto.js';
import { createTestUser, newDeviceId, uniqueEmail, xsrf, type TestApp } from './helpers.js';

/** Helpers for sign-up, setup and mail tests. */

export const SIGNUP_URL = API_BASE + CALLS.signup.path;
export const RESEND_URL = API_BASE + CALLS.resendVerification.path;
export const SETUP_URL = API_BASE + CALLS.setupAccount.path;
export const VERIFY_URL = API_BASE + CALLS.verifyEmail.path;
export const fieldsUrl = (token: string): string => callUrl('setupAccountFields', { id: token });

export const PASSWORD = 'correct horse battery';

/** A POST as the web app sends it: JSON with the XSRF pair. */
export function postJson(
  t: TestApp,
  url: string,
  payload: object,
  options: { headers?: Record<string, string>; cookies?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const pair = xsrf();
  return t.app.inject({
    method: 'POST',
    url,
    payload,
    cookies: { ...pair.cookies, ...options.cookies },
    headers: { ...pair.headers, ...options.headers },
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
  });
}

export function signUpBody(overrides: Record<string, unknown> = {}): Record<string, unknown> & { email: string } {
  return {
    deviceId: newDeviceId(),
    email: uniqueEmail('signup'),
    hashPassword: sha256Hex(PASSWORD),
    firstName: 'Ada',
    lastName: 'Lovelace',
    ...overrides,
  } as Record<string, unknown> & { email: string };
}

export function postSignUp(
  t: TestApp,
  body: Record<string, unknown>,
  options: { headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return postJson(t, SIGNUP_URL, body, options);
}

/** An outbox row with its sealed content opened; the parts are empty once delivered (deleted). */
export interface OutboxMail extends Omit<OutboxRow, 'sealed_content'> {
  subject: string;
  text_body: string;
  html_body: string;
}

/** Outbox rows to an address (as typed at sign-up), oldest first, opened with the app's key. */
export async function mailsTo(t: TestApp, to: string, kind?: string): Promise<OutboxMail[]> {
  const key = outboxKeyOf(t.config);
  const rows = await listOutbox(t.db, { to, ...(kind === undefined ? {} : { kind }) });
  return rows.map(({ sealed_content: sealed, ...row }) => {
    const content = sealed === null ? undefined : openMail(key, { id: row.id, to: row.to_address }, sealed);
    return { ...row, subject: content?.subject ?? '', text_body: content?.text ?? '', html_body: content?.html ?? '' };
  });
}

type LinkRoute = 'verifyEmail' | 'setupAccount';

/** The token of the first `/verify-email/<token>` or `/setup-account/<token>` link in a text. */
export function tokenIn(text: string, route: LinkRoute): string {
  const prefix = ROUTES[route].replace(':token', '');
  const match = new RegExp(`https?://[^\\s]+${prefix}([A-Za-z0-9_-]+)`).exec(text);
  if (match?.[1] === undefined) throw new Error(`no ${prefix} link in:\n${text}`);
  return match[1];
}

/**
 * The token of the link that works now among the mails of a kind to an address (mails queued in
 * the same millisecond have no order; a newer link always ends the older ones).
 */
export async function latestToken(t: TestApp, to: string, kind: 'verifyEmail' | 'invitation'): Promise<string> {
  const tokens = (await mailsTo(t, to, kind)).map((row) => tokenIn(row.text_body, kind === 'verifyEmail' ? 'verifyEmail' : 'setupAccount'));
  for (const token of tokens.reverse()) {
    const row = await t.db.selectFrom('email_tokens').select('used_at').where('id', '=', sha256Hex(token)).executeTakeFirst();
    if (row?.used_at === null) return token;
  }
  const last = tokens[0];
  if (last === undefined) throw new Error(`no ${kind} mail to ${to}`);
  return last;
}

/** Polls until `check` holds (for the mail worker's background rounds). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** GET the setup fields of a token, as the setup screen does on load. */
export function getFields(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: fieldsUrl(token) });
}

/** Signs up through the API and returns the email and its verification token. */
export async function signedUp(t: TestApp, overrides: Record<string, unknown> = {}): Promise<{ email: string; token: string }> {
  const body = signUpBody(overrides);
  const response = await postSignUp(t, body);
  if (response.statusCode !== 200) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  return { email: body.email, token: await latestToken(t, body.email, 'verifyEmail') };
}

/** An account as an invitation leaves it (no name, no password, unverified) and its setup token. */
export async function invitee(t: TestApp): Promise<{ email: string; userId: string; token: string }> {
  const account = await createTestUser(t, { verified: false, withoutPassword: true });
  await t.db.updateTable('users').set({ first_name: null, last_name: null }).where('id', '=', account.user.id).execute();
  const token = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'invitation' });
  return { email: account.email, userId: account.user.id, token };
}
