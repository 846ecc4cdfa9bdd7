import { SUPPORTED_LOCALES } from '@foyer/contract';
import { CLI_META } from '../features/audit/audit.service.js';
import { inviteMember } from '../features/organizations/invitations.service.js';
import { OrganizationError, claimDomain, createOrganization, type OrganizationProblem } from '../features/organizations/organizations.service.js';
import { EXIT, UsageError, optional, parse, required, type AdminCommand, type AdminIo } from './args.js';

export const ORG_USAGE = `  org create --name N [--domain D] [--sso-required]
      Creates an organisation, optionally claiming an email domain; prints its id.
  org claim-domain --org O --domain D [--sso-required]
      Claims an email domain for organisation O (id or name); run again to change
      --sso-required. With SSO required, passwords are refused there: sign-up,
      sign-in and reset point to SSO sign-in.
  invite --org O --email E [--locale ${SUPPORTED_LOCALES.join('|')}]
      Makes E a member of O and emails a link to choose a name and password (valid
      7 days). Inviting someone who has not finished setup sends a fresh link.
      Where O requires SSO for E's domain, the mail links to SSO sign-in instead.
`;

const PROBLEMS: Record<OrganizationProblem, string> = {
  invalidName: 'the organisation name must not be blank, longer than 200 characters or hold a control character',
  nameTaken: 'an organisation with this name already exists',
  invalidDomain: 'the domain is not a valid domain name',
  domainTaken: 'another organisation has already claimed this domain',
  unknownOrganization: 'no organisation with this id or name',
  invalidEmail: 'the email address is not valid',
  invalidLocale: `the locale must be one of ${SUPPORTED_LOCALES.join(', ')}`,
  alreadySetUp: 'this member has already set up their account',
  otherAccount: 'this email already has an account outside this organisation',
  deactivated: 'this member is deactivated',
};

/** Runs a command, turning the service's refusals into exit 1 with a reason. */
async function reporting(io: AdminIo, run: () => Promise<string>): Promise<number> {
  try {
    io.stdout(await run());
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof OrganizationError)) throw error;
    io.stderr(`Error: ${PROBLEMS[error.problem]}\n`);
    return EXIT.failed;
  }
}

const orgCreate: AdminCommand = async (args, io) => {
  const values = parse(args, { name: { type: 'string' }, domain: { type: 'string' }, 'sso-required': { type: 'boolean' } });
  const name = required(values, 'name');
  const domain = optional(values, 'domain');
  const ssoRequired = values['sso-required'] === true;
  if (ssoRequired && domain === undefined) throw new UsageError('--sso-required needs --domain');
  return reporting(io, async () => {
    const org = await createOrganization(io.deps, { name, ...(domain === undefined ? {} : { domain }), ssoRequired }, CLI_META);
    // Only the id, so scripts can capture it.
    return `${org.id}\n`;
  });
};

const orgClaimDomain: AdminCommand = async (args, io) => {
  const values = parse(args, { org: { type: 'string' }, domain: { type: 'string' }, 'sso-required': { type: 'boolean' } });
  const input = { org: required(values, 'org'), domain: required(values, 'domain'), ssoRequired: values['sso-required'] === true };
  return reporting(io, async () => {
    const claim = await claimDomain(io.deps, input, CLI_META);
    const sso = input.ssoRequired ? 'SSO required' : 'SSO not required';
    return `${claim.updated ? 'Updated' : 'Claimed'} ${claim.domain} for ${claim.org.name} (${claim.org.id}); ${sso}\n`;
  });
};

const invite: AdminCommand = async (args, io) => {
  const values = parse(args, { org: { type: 'string' }, email: { type: 'string' }, locale: { type: 'string' } });
  const locale = optional(values, 'locale');
  const input = { org: required(values, 'org'), email: required(values, 'email'), ...(locale === undefined ? {} : { locale }) };
  return reporting(io, async () => {
    const { user, resent, sso } = await inviteMember(io.deps, input, CLI_META);
    if (sso) return `Invited ${user.email} (${user.id}); a link to SSO sign-in is in the mail queue\n`;
    return resent
      ? `Sent ${user.email} a fresh setup link; the previous one no longer works\n`
      : `Invited ${user.email} (${user.id}); the setup link is in the mail queue\n`;
  });
};

export const ORG_COMMANDS: Record<string, AdminCommand> = {
  'org create': orgCreate,
  'org claim-domain': orgClaimDomain,
  invite,
};
