import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LIMITS, normalizeEmail, passwordLengthOk } from '@foyer/contract';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Deps } from '../deps.js';
import { CLI_META, recordAudit } from '../features/audit/audit.service.js';
import { clearLockout } from '../features/lockout/lockout.service.js';
import { createRedirectPolicy } from '../features/redirects/redirect-policy.js';
import { unitOfWork } from '../lib/unit-of-work.js';
import {
  CreateUserError,
  createUser,
  deactivateUser,
  endAllSessions,
  reactivateUser,
  signOutEverywhere,
  type CreateUserProblem,
} from '../features/users/users.service.js';
import { systemClock } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import { isCommonPassword } from '../lib/password-floor.js';
import { createPasswordHasher } from '../lib/passwords.js';
import { EXIT, UsageError, parse, required, type AdminCommand, type AdminIo } from './args.js';
import { AUDIT_COMMANDS, AUDIT_USAGE } from './audit-commands.js';
import { EMAIL_COMMANDS, EMAIL_USAGE } from './email-commands.js';
import { ORG_COMMANDS, ORG_USAGE } from './org-commands.js';
import { SSO_COMMANDS, SSO_USAGE } from './sso-commands.js';

export const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  user create --email E --password P --first-name F --last-name L [--unverified]
      Creates an account (verified unless --unverified).
  user deactivate --email E
      Deactivates the account and ends all of its sessions.
  user reactivate --email E
      Lets a deactivated account sign in again; nothing of it was lost.
  user sign-out --email E
      Ends every session and device token of the account (a lost or stolen device);
      the account stays usable.
  sessions end-all
      Ends every session and device token of every account; everyone signs in again.
  user unlock --email E
      Clears the failed sign-in count and lock of an email (with or without an account).
${EMAIL_USAGE}${ORG_USAGE}${SSO_USAGE}${AUDIT_USAGE}
Options:
  -h, --help   Show this help.

The database is the server's (DATABASE_URL, default ./data/foyer.sqlite); migrations run first.
`;

export { EXIT, type AdminIo } from './args.js';

const CREATE_PROBLEMS: Record<CreateUserProblem, string> = {
  invalidEmail: 'the email address is not valid',
  invalidFirstName: 'the first name must not be blank, longer than 100 characters or hold a control character',
  invalidLastName: 'the last name must not be blank, longer than 100 characters or hold a control character',
  emailTaken: 'an account with this email already exists',
};

async function userCreate(args: string[], io: AdminIo): Promise<number> {
  const values = parse(args, {
    email: { type: 'string' },
    password: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    unverified: { type: 'boolean' },
  });
  const email = required(values, 'email');
  const password = required(values, 'password');
  const firstName = required(values, 'first-name');
  const lastName = required(values, 'last-name');
  if (!passwordLengthOk(password)) {
    io.stderr(`Error: the password must be ${LIMITS.minPasswordLength} to ${LIMITS.maxPasswordLength} characters\n`);
    return EXIT.failed;
  }
  // The floor sign-up, setup and reset keep (decision 0014): an operator's password is no exception.
  if (isCommonPassword(sha256Hex(password))) {
    io.stderr('Error: the password is one of the most common passwords; choose another\n');
    return EXIT.failed;
  }
  try {
    // Hashed exactly as the browser does (spec §5), so this password works on the sign-in page.
    const user = await createUser(
      io.deps,
      { email, hashPassword: sha256Hex(password), firstName, lastName, verified: values.unverified !== true },
      CLI_META,
    );
    io.stdout(`Created user ${user.email} (${user.id})${user.email_verified_at === null ? ', unverified' : ''}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CreateUserError) {
      io.stderr(`Error: ${CREATE_PROBLEMS[error.problem]}\n`);
      return EXIT.failed;
    }
    throw error;
  }
}

/** A command on one account by its email: `act` answers what to print, or undefined when there is no such account (exit 1). */
function accountCommand(act: (deps: Deps, email: string) => Promise<string | undefined>): AdminCommand {
  return async (args, io) => {
    const email = required(parse(args, { email: { type: 'string' } }), 'email');
    const done = await act(io.deps, email);
    if (done === undefined) {
      io.stderr(`Error: no account with email ${email}\n`);
      return EXIT.failed;
    }
    io.stdout(`${done}\n`);
    return EXIT.ok;
  };
}

const userDeactivate = accountCommand(async (deps, email) => {
  const user = await deactivateUser(deps, email, CLI_META);
  return user && `Deactivated user ${user.email} (${user.id}); all of its sessions ended`;
});

const userReactivate = accountCommand(async (deps, email) => {
  const result = await reactivateUser(deps, email, CLI_META);
  if (result === undefined) return undefined;
  const { user, reactivated } = result;
  return reactivated ? `Reactivated user ${user.email} (${user.id})` : `${user.email} (${user.id}) is not deactivated; nothing to do`;
});

const userSignOut = accountCommand(async (deps, email) => {
  const result = await signOutEverywhere(deps, email, CLI_META);
  return result && `Signed ${result.user.email} (${result.user.id}) out everywhere: ${result.sessionsEnded} session(s) and device token(s) ended`;
});

async function sessionsEndAll(args: string[], io: AdminIo): Promise<number> {
  parse(args, {});
  const ended = await endAllSessions(io.deps, CLI_META);
  io.stdout(`Ended ${ended} session(s) and device token(s) of every account\n`);
  return EXIT.ok;
}

async function userUnlock(args: string[], io: AdminIo): Promise<number> {
  const email = required(parse(args, { email: { type: 'string' } }), 'email');
  // The lock is per email, not per account (spec §9), so unknown emails can be unlocked too.
  const emailKey = normalizeEmail(email);
  const uow = unitOfWork(io.deps);
  const cleared = await clearLockout(uow, emailKey);
  await recordAudit(uow, { type: 'user.unlocked', meta: CLI_META, emailKey });
  io.stdout(cleared ? `Unlocked ${emailKey}\n` : `${emailKey} had no failed sign-ins; nothing to unlock\n`);
  return EXIT.ok;
}

const COMMANDS: Record<string, AdminCommand> = {
  'user create': userCreate,
  'user deactivate': userDeactivate,
  'user reactivate': userReactivate,
  'user sign-out': userSignOut,
  'sessions end-all': sessionsEndAll,
  'user unlock': userUnlock,
  ...EMAIL_COMMANDS,
  ...ORG_COMMANDS,
  ...SSO_COMMANDS,
  ...AUDIT_COMMANDS,
};

/** Runs one admin command; returns the process exit code. Output goes through io only. */
export async function runAdmin(argv: readonly string[], io: AdminIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    (argv.length === 0 ? io.stderr : io.stdout)(USAGE);
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  // Commands are two words (`user create`) or one (`invite`).
  const words = COMMANDS[argv.slice(0, 2).join(' ')] !== undefined ? 2 : 1;
  const command = COMMANDS[argv.slice(0, words).join(' ')];
  if (command === undefined) {
    io.stderr(`Error: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  const args = argv.slice(words);
  // Help, unless it stands where an option's value belongs (`--first-name -h` is a wrong command
  // line, exit 2, not a request for help that exits 0 having done nothing).
  const asksHelp = args.some((arg, i) => (arg === '--help' || arg === '-h') && (i === 0 || !args[i - 1]!.startsWith('-') || args[i - 1]!.includes('=')));
  if (asksHelp) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  try {
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`Error: ${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    throw error;
  }
}

function readConfig(): Config | undefined {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return undefined;
    }
    throw error;
  }
}

async function main(): Promise<number> {
  const config = readConfig();
  if (config === undefined) return EXIT.failed;
  const database = openDatabase(config.database, { max: 1 });
  const passwords = await createPasswordHasher(config.argon2);
  try {
    await migrateToLatest(database);
    const deps: Deps = {
      db: database.db,
      config,
      clock: systemClock,
      passwords,
      redirects: createRedirectPolicy(config),
    };
    return await runAdmin(process.argv.slice(2), {
      deps,
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    });
  } finally {
    // Close the pool or file, and the argon2 threads, so the process exits as soon as the command is done.
    await Promise.all([database.destroy(), passwords.close()]);
  }
}

// Run only as the entry point, so tests can import runAdmin without side effects.
const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
