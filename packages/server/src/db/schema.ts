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
}

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

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  audit_events: AuditEventsTable;
}
