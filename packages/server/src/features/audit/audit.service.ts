import type { FastifyRequest } from 'fastify';
import { randomId } from '../../lib/crypto.js';
import { clientAddress } from '../../lib/trust-proxy.js';
import type { UnitOfWork } from '../../lib/unit-of-work.js';
import type { AuditEventsTable } from '../../db/schema.js';
import { insertAuditEvent } from './audit.repo.js';

/** Security events (ASVS V16.3.1: every authentication attempt, success or not). */
export const AUDIT_EVENT_TYPES = [
  'signin.success',
  'signin.failure',
  'signin.locked',
  'signout',
  'user.created',
  'user.deactivated',
  'user.reactivated',
  'user.signedOut',
  'sessions.allEnded',
  'user.unlocked',
  // sign-up, setup and invitations (decision 0009)
  'signup',
  'signup.existing',
  'verification.resent',
  'email.verified',
  'setup.completed',
  'org.created',
  'org.domainClaimed',
  'org.invited',
  // forgot and reset password (decision 0010)
  'password.resetRequested',
  'password.reset',
  // Google sign-in and transfer tokens (decision 0019)
  'google.signup',
  'google.linked',
  'google.signin',
  'google.refused',
  'transfer.issued',
  'transfer.exchanged',
  'transfer.refused',
  // community forum and device tokens (decision 0021)
  'community.signin',
  'community.refused',
  'community.termsAgreed',
  'device.tokenIssued',
  // company single sign-on (decision 0022)
  'sso.connectionAdded',
  'sso.connectionRemoved',
  'sso.started',
  'sso.signup',
  'sso.linked',
  'sso.signin',
  'sso.refused',
  // email change (decision 0023)
  'email.changeRequested',
  'email.changed',
  'email.changeRefused',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Where a request came from; null for the admin CLI. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export const CLI_META: RequestMeta = { ip: null, userAgent: 'foyer-admin-cli' };

const MAX_USER_AGENT = 512;

export function requestMeta(request: FastifyRequest): RequestMeta {
  const agent = request.headers['user-agent'];
  return { ip: clientAddress(request), userAgent: typeof agent === 'string' ? agent.slice(0, MAX_USER_AGENT) : null };
}

export interface AuditEvent {
  type: AuditEventType;
  meta: RequestMeta;
  userId?: string | null;
  emailKey?: string | null;
  /** Facts about the event; never a password, hash or token. */
  detail?: Record<string, string | number | boolean>;
}

/** The row that records `event` at `now`, for a statement that writes it together with its cause. */
export function auditRow(now: number, event: AuditEvent): AuditEventsTable {
  return {
    id: randomId(),
    at: now,
    type: event.type,
    user_id: event.userId ?? null,
    email_key: event.emailKey ?? null,
    ip: event.meta.ip,
    user_agent: event.meta.userAgent,
    detail: event.detail === undefined ? null : JSON.stringify(event.detail),
  };
}

export async function recordAudit(uow: UnitOfWork, event: AuditEvent): Promise<void> {
  await insertAuditEvent(uow.db, auditRow(uow.now, event));
}

/**
 * An event's detail with the client's authentication period (spec §7: the SSO start, the Google
 * exchange and `exchange/otterToken` carry it), when the client sent one: the trail then tells
 * which of a desktop client's sign-in attempts a step belongs to.
 */
export function withClientPeriod(
  detail: Record<string, string | number | boolean>,
  clientAuthenticationPeriodId: string | undefined,
): Record<string, string | number | boolean> {
  return clientAuthenticationPeriodId === undefined || clientAuthenticationPeriodId === '' ? detail : { ...detail, clientAuthenticationPeriodId };
}
