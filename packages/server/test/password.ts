import { randomBytes } from 'node:crypto';
import { API_BASE, CALLS, ROUTES } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { sha256Hex } from '../src/lib/crypto.js';
import { mailsTo, postJson } from './account-entry.js';
import type { TestApp } from './helpers.js';

/** Helpers for forgot- and reset-password tests. */

export const FORGOT_URL = API_BASE + CALLS.forgotPassword.path;
export const RESET_URL = API_BASE + CALLS.resetPassword.path;

export interface RequestOptions {
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export function postForgot(t: TestApp, body: Record<string, unknown>, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
  return postJson(t, FORGOT_URL, body, options);
}

/** POST resetPassword with the password as the browser hashes it (spec §5). */
export function postReset(t: TestApp, token: string, password: string, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
  return postJson(t, RESET_URL, { token, hashPassword: sha256Hex(password) }, options);
}

/** The token of the first `/reset-password/<token>` link in a text. */
export function resetTokenIn(text: string): string {
  const prefix = ROUTES.resetPassword.replace(':token', '');
  const match = new RegExp(`https?://[^\\s]+${prefix}([A-Za-z0-9_-]+)`).exec(text);
  if (match?.[1] === undefined) throw new Error(`no ${prefix} link in:\n${text}`);
  return match[1];
}

/**
 * Asks for a reset link for an email and returns its token, read from the new queued mail (mails
 * queued in the same millisecond of the manual clock have no order, so it is found by id).
 */
export async function requestResetToken(t: TestApp, email: string, options: RequestOptions = {}): Promise<string> {
  const before = new Set((await mailsTo(t, email, 'passwordReset')).map((row) => row.id));
  const response = await postForgot(t, { email }, options);
  if (response.statusCode !== 200) throw new Error(`forgotPassword failed: ${response.statusCode} ${response.body}`);
  const fresh = (await mailsTo(t, email, 'passwordReset')).filter((row) => !before.has(row.id));
  const mail = fresh[0];
  if (fresh.length !== 1 || mail === undefined) throw new Error(`expected one new reset mail to ${email}, found ${fresh.length}`);
  return resetTokenIn(mail.text_body);
}

/** A fresh documentation address (RFC 3849, 2001:db8::/32), so per-address counters start at zero. */
export function randomAddress(): string {
  // Rate limits count an IPv6 client by its /64 (lib/rate-limit.ts `clientKey`): the random part is there.
  return `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
}
