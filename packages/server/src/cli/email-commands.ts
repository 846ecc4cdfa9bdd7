import { DEFAULT_LOCALE, isValidEmail, normalizeEmail } from '@foyer/contract';
import { CLI_META, recordAudit } from '../features/audit/audit.service.js';
import { issueEmailChange } from '../features/email-change/email-change.service.js';
import { findUserByEmailKey } from '../features/users/users.repo.js';
import { inTransaction } from '../lib/unit-of-work.js';
import { EXIT, parse, required, type AdminCommand } from './args.js';

export const EMAIL_USAGE = `  user change-email --email OLD --new NEW
      Emails NEW the same link as the account's own request (valid 24 hours) and
      OLD a notice; the account moves to NEW when the link is used.
`;

/**
 * Decision 0023: an administrator starts the same email change a signed-in person asks for. The
 * operator is trusted, so unlike the call the command says plainly when NEW already has an account.
 */
const userChangeEmail: AdminCommand = async (args, io) => {
  const values = parse(args, { email: { type: 'string' }, new: { type: 'string' } });
  const email = required(values, 'email');
  const newEmail = required(values, 'new').trim();
  if (!isValidEmail(newEmail)) {
    io.stderr('Error: the new email address is not valid\n');
    return EXIT.failed;
  }
  const user = await findUserByEmailKey(io.deps.db, normalizeEmail(email));
  if (user === undefined) {
    io.stderr(`Error: no account with email ${email}\n`);
    return EXIT.failed;
  }
  if (user.deactivated_at !== null) {
    io.stderr('Error: this account is deactivated\n');
    return EXIT.failed;
  }
  if ((await findUserByEmailKey(io.deps.db, normalizeEmail(newEmail))) !== undefined) {
    io.stderr('Error: an account with the new email already exists\n');
    return EXIT.failed;
  }
  await inTransaction(io.deps, async (uow) => {
    const linkSent = await issueEmailChange(uow, io.deps, user, newEmail, DEFAULT_LOCALE);
    await recordAudit(uow, { type: 'email.changeRequested', meta: CLI_META, userId: user.id, emailKey: user.email_key, detail: { linkSent } });
  });
  io.stdout(`Sent ${newEmail} a link to confirm the change of ${user.email}; the link and a notice to ${user.email} are in the mail queue\n`);
  return EXIT.ok;
};

export const EMAIL_COMMANDS: Record<string, AdminCommand> = { 'user change-email': userChangeEmail };
