import type { ColumnType, Kysely, Transaction } from 'kysely';

/**
 * Table types for Kysely. Times are epoch milliseconds (`bigint` columns; pg's int8 parser is
 * set to return numbers). Later capabilities add tables in new migrations and types here.
 */
export interface UsersTable {
  id: string;
  /** As the person typed it, for display and for mail. */
  email: string;
  /** normalizeEmail(email): the unique key every per-email rule uses. */
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  password_hash: string | null;
  locale: string | null;
  email_verified_at: number | null;
  deactivated_at: number | null;
  org_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  /** SHA-256 hex of the token: the token itself is never stored. */
  id: string;
  user_id: string;
  device_id: string;
  created_at: number;
  last_seen_at: number;
  /** Absolute expiry (ASVS V7.3.2). */
  expires_at: number;
  /** Migration 008: a sign-in's session, or a native client's device token (decision 0021). */
  kind: ColumnType<SessionKind, SessionKind | undefined, SessionKind>;
}

export type SessionKind = 'browser' | 'device';

export interface LoginFailuresTable {
  email_key: string;
  failures: number;
  last_failure_at: number;
  locked_until: number | null;
}

export interface AuditEventsTable {
  id: string;
  at: number;
  type: string;
  user_id: string | null;
  email_key: string | null;
  ip: string | null;
  user_agent: string | null;
  /** JSON object with event-specific facts; never secrets. */
  detail: string | null;
}

/** Migration 002: every email, written in the transaction of the change that caused it. */
export interface MailOutboxTable {
  id: string;
  /** Which template made it (verifyEmail, invitation, …), for tests and operations. */
  kind: string;
  to_address: string;
  locale: string;
  /**
   * Migration 006 (decision 0012): subject, text and HTML parts sealed with AES-256-GCM under a key
   * from SECRET_KEY, bound to the row's id and recipient; null once the mail is delivered.
   */
  sealed_content: string | null;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  /** A worker's claim: others leave the row alone until then (multi-instance safety). */
  locked_until: number | null;
  sent_at: number | null;
  /** Migration 014: refused for good by the receiving server (a 5xx to its recipient or content); not sent again. */
  bounced_at: number | null;
  /** The transport's error of the last failed attempt; never credentials or the message. */
  last_error: string | null;
}

/** Migration 002: what the local dev mailbox received (FOYER_ENV=local without SMTP_URL). */
export interface DevMailboxTable {
  /** The outbox row's id: delivering a message twice stores it once. */
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  delivered_at: number;
}

/** Migration 003. */
export interface OrganizationsTable {
  id: string;
  name: string;
  /** Lower-cased trimmed name: names are unique regardless of case (the CLI finds orgs by name). */
  name_key: string;
  created_at: number;
}

export interface OrganizationDomainsTable {
  /** Lower-case domain; one organisation per domain. */
  domain: string;
  org_id: string;
  /** 1 when sign-up with a password is refused for this domain (ssoRequired); 0 otherwise. */
  sso_required: number;
  created_at: number;
}

/** Emailed single-use tokens (sign-up verification, invitation setup; reusable by purpose). */
export interface EmailTokensTable {
  /** SHA-256 hex of the token: the token itself is never stored. */
  id: string;
  user_id: string;
  purpose: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** Migration 005: the sign-up whose credential a verification link activates; null otherwise. */
  signup_id: string | null;
  /** Migration 010: why the token ended (features/tokens, `TokenEndReason`); null while open. */
  ended_reason: string | null;
  /** Migration 011: the address an `emailChange` token moves its account to (decision 0023). */
  new_email: string | null;
  /** Migration 013: a company sign-in's transfer token, its request's binding (sso.binding.ts); else null. */
  binding_hash: string | null;
}

/** One row per sign-up request; its id is the opaque `userId` the sign-up call answers. */
export interface SignupAttemptsTable {
  id: string;
  email_key: string;
  /** The account this attempt created; null when the email already had one. */
  user_id: string | null;
  created_at: number;
  /**
   * Migration 005 (decision 0014): this sign-up's own credential and names, pending until one of
   * its links verifies the email. Null once another sign-up of the email was verified (dropped),
   * and on attempts made before the migration.
   */
  password_hash: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  /** What the attempt mailed: 'verification', 'notice', or null (nothing, the notice was capped). */
  mailed: string | null;
}

/** Marketing attribution and intent captured at sign-up or setup (spec §3, §7). */
export interface UserAttributionTable {
  user_id: string;
  signup_source: string | null;
  initial_intent: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_source: string | null;
  utm_term: string | null;
  gclid: string | null;
  ga_id: string | null;
  hubspot_token: string | null;
  is_marketing_test: number | null;
  /** Only a value that passed the redirect allow-list; setup sends the browser there. */
  redirect_to: string | null;
  /** Migration 012: the page the visitor last came from, and the marketing test's data (Google sign-up). */
  last_touch_url: string | null;
  marketing_test_data: string | null;
  created_at: number;
  updated_at: number;
}

/** Migration 004: an account's earlier password hashes (decision 0010), newest has the highest seq. */
export interface PasswordHistoryTable {
  id: string;
  user_id: string;
  seq: number;
  /** argon2id, as users.password_hash was before the change; never a password. */
  password_hash: string;
  created_at: number;
}

/** Migration 007 (decision 0019): a Google authorization request waiting for its return. */
export interface SocialAuthStatesTable {
  /** SHA-256 hex of the browser's state: the state itself is never stored. */
  id: string;
  code_verifier: string;
  nonce: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Migration 007: an account's identity at an OpenID provider, keyed on (issuer, subject). */
export interface ExternalIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  /** The email the provider last gave, for operations; never a key. */
  email: string;
  created_at: number;
  last_used_at: number;
}

/** Migration 008: each DiscourseConnect nonce answered (SHA-256 of the nonce), so it is answered once. */
export interface DiscourseNoncesTable {
  id: string;
  user_id: string;
  answered_at: number;
  expires_at: number;
}

/** Migration 008: the community terms version an account accepted. */
export interface CommunityTermsTable {
  user_id: string;
  terms_version: string;
  agreed_at: number;
}

/** Migration 009 (decision 0022): an organisation's identity provider, SAML 2.0 or OpenID Connect. */
export interface SsoConnectionsTable {
  id: string;
  org_id: string;
  kind: 'saml' | 'oidc';
  saml_idp_entity_id: string | null;
  saml_idp_sso_url: string | null;
  /** JSON array of PEM certificates: the only keys a response may be signed with. */
  saml_idp_certs: string | null;
  /** 1 when IdP-initiated (unsolicited) responses are accepted; 0 by default. */
  saml_allow_unsolicited: number;
  oidc_issuer: string | null;
  oidc_client_id: string | null;
  /** Sealed with a key derived from SECRET_KEY (sso.secret.ts); never stored in the clear. */
  oidc_client_secret: string | null;
  created_at: number;
}

/** Migration 009: a sign-in this service started (SAML request ID, or SHA-256 of the OIDC state). */
export interface SsoRequestsTable {
  id: string;
  connection_id: string;
  /** Spec §3: 'native' or 'chrome'; null for the web. */
  client_kind: string | null;
  /** Already checked against the redirect allow-list. */
  return_url: string | null;
  nonce: string | null;
  code_verifier: string | null;
  /** Migration 013: the SHA-256 of the starting browser's binding cookie, or `desktop` for a desktop client's hand-off. */
  binding_hash: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Migration 009: assertion IDs already accepted, until the assertion expires (replay cache). */
export interface SsoAssertionsSeenTable {
  connection_id: string;
  assertion_id: string;
  expires_at: number;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  audit_events: AuditEventsTable;
  mail_outbox: MailOutboxTable;
  dev_mailbox: DevMailboxTable;
  organizations: OrganizationsTable;
  organization_domains: OrganizationDomainsTable;
  email_tokens: EmailTokensTable;
  signup_attempts: SignupAttemptsTable;
  user_attribution: UserAttributionTable;
  password_history: PasswordHistoryTable;
  social_auth_states: SocialAuthStatesTable;
  external_identities: ExternalIdentitiesTable;
  discourse_nonces: DiscourseNoncesTable;
  community_terms: CommunityTermsTable;
  sso_connections: SsoConnectionsTable;
  sso_requests: SsoRequestsTable;
  sso_assertions_seen: SsoAssertionsSeenTable;
}

/** The database, or a transaction on it: what every repository function runs its statements on. */
export type Db = Kysely<DB> | Transaction<DB>;
