import { normalizeEmail } from '@foyer/contract';
import type { AuditEventsTable } from '../db/schema.js';
import { listRecentAuditEvents } from '../features/audit/audit.repo.js';
import { EXIT, UsageError, optional, parse, required, type AdminCommand } from './args.js';

export const AUDIT_USAGE = `  audit --email E [--limit N]
      Prints the audit trail of an email (sign-ins, locks, resets, sign-up, verification),
      newest first: time (UTC), type, client address, user agent. --limit defaults to 50.
`;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;
const HEADER = ['TIME', 'TYPE', 'IP', 'USER AGENT'] as const;

/**
 * A stored value fit for a terminal. User agents and addresses come from requests, so control
 * characters are replaced: an ANSI escape sequence in a User-Agent header must not be able to
 * rewrite what an operator sees (terminal injection).
 */
function printable(value: string | null): string {
  if (value === null || value === '') return '-';
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function row(event: AuditEventsTable): string[] {
  return [new Date(event.at).toISOString(), printable(event.type), printable(event.ip), printable(event.user_agent)];
}

/** Aligned columns; the last one (user agent) is not padded. */
export function formatAuditTable(events: readonly AuditEventsTable[]): string {
  const rows = [[...HEADER], ...events.map(row)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${rows.map(line).join('\n')}\n`;
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** `audit --email E [--limit N]` (decision 0010): events are kept per normalised email, as the lock is. */
const audit: AdminCommand = async (args, io) => {
  const values = parse(args, { email: { type: 'string' }, limit: { type: 'string' } });
  const emailKey = normalizeEmail(required(values, 'email'));
  const limit = parseLimit(optional(values, 'limit'));
  const events = await listRecentAuditEvents(io.deps.db, { emailKey, limit });
  io.stdout(events.length === 0 ? `No audit events for ${emailKey}\n` : formatAuditTable(events));
  return EXIT.ok;
};

export const AUDIT_COMMANDS: Record<string, AdminCommand> = { audit };
