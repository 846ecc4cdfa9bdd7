import { CLI_META } from '../features/audit/audit.service.js';
import {
  ConnectionError,
  addOidcConnection,
  addSamlConnection,
  connections,
  removeConnection,
  type ConnectionProblem,
} from '../features/sso/sso.connections.js';
import { ssoUrls } from '../features/sso/sso.urls.js';
import { EXIT, parse, required, type AdminCommand, type AdminIo } from './args.js';

export const SSO_USAGE = `  sso add-saml --org O --metadata <file|https URL> [--allow-unsolicited]
      Connects organisation O to a SAML 2.0 identity provider from its metadata (entity
      ID, sign-on address, signing certificates); prints what to give the IdP.
      --allow-unsolicited accepts IdP-initiated sign-ins (refused by default).
  sso add-oidc --org O --issuer URL --client-id ID --client-secret S
      Connects organisation O to an OpenID Connect provider; prints the redirect URI.
  sso list
      Lists every connection.
  sso remove --org O
      Removes organisation O's connection.
`;

const PROBLEMS: Record<ConnectionProblem, string> = {
  unknownOrganization: 'no organisation with this id or name',
  alreadyConnected: 'this organisation already has a connection; remove it first',
  notConnected: 'this organisation has no connection',
  badMetadata: 'the metadata cannot be used',
  badIssuer: 'the issuer must be an https address (plain http only on this machine)',
  blankClient: 'the client id and client secret must not be blank',
};

async function reporting(io: AdminIo, run: () => Promise<string>): Promise<number> {
  try {
    io.stdout(await run());
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof ConnectionError)) throw error;
    io.stderr(`Error: ${PROBLEMS[error.problem]}${error.detail === undefined ? '' : `: ${error.detail}`}\n`);
    return EXIT.failed;
  }
}

const addSaml: AdminCommand = async (args, io) => {
  const values = parse(args, { org: { type: 'string' }, metadata: { type: 'string' }, 'allow-unsolicited': { type: 'boolean' } });
  const input = { org: required(values, 'org'), metadata: required(values, 'metadata'), allowUnsolicited: values['allow-unsolicited'] === true };
  return reporting(io, async () => {
    const { org, connection, idp } = await addSamlConnection(io.deps, input, CLI_META);
    const urls = ssoUrls(io.deps.config, connection.id);
    return [
      `Connected ${org.name} (${org.id}) to SAML identity provider ${idp.entityId} as ${connection.id}`,
      `  IdP sign-on address:        ${idp.ssoUrl}`,
      `  IdP signing certificates:   ${idp.certificates.length}`,
      `  Unsolicited responses:      ${input.allowUnsolicited ? 'accepted' : 'refused'}`,
      'Give the identity provider:',
      `  SP entity ID:               ${urls.entityId}`,
      `  Assertion consumer (POST):  ${urls.acs}`,
      `  SP metadata:                ${urls.metadata}`,
      '',
    ].join('\n');
  });
};

const addOidc: AdminCommand = async (args, io) => {
  const values = parse(args, {
    org: { type: 'string' },
    issuer: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
  });
  const input = {
    org: required(values, 'org'),
    issuer: required(values, 'issuer'),
    clientId: required(values, 'client-id'),
    clientSecret: required(values, 'client-secret'),
  };
  return reporting(io, async () => {
    const { org, connection } = await addOidcConnection(io.deps, input, CLI_META);
    return [
      `Connected ${org.name} (${org.id}) to OpenID provider ${input.issuer} as ${connection.id}`,
      'Register this redirect URI with the provider:',
      `  ${ssoUrls(io.deps.config, connection.id).oidcCallback}`,
      '',
    ].join('\n');
  });
};

const list: AdminCommand = async (args, io) => {
  parse(args, {});
  const rows = await connections(io.deps);
  if (rows.length === 0) {
    io.stdout('No SSO connections\n');
    return EXIT.ok;
  }
  for (const row of rows) {
    const target =
      row.kind === 'saml'
        ? `${row.saml_idp_entity_id ?? ''}${row.saml_allow_unsolicited === 1 ? ' (unsolicited accepted)' : ''}`
        : (row.oidc_issuer ?? '');
    io.stdout(`${row.org_name} (${row.org_id})  ${row.kind}  ${target}  ${row.id}\n`);
  }
  return EXIT.ok;
};

const remove: AdminCommand = async (args, io) => {
  const values = parse(args, { org: { type: 'string' } });
  const input = { org: required(values, 'org') };
  return reporting(io, async () => {
    const { org, connection } = await removeConnection(io.deps, input, CLI_META);
    return `Removed ${org.name}'s ${connection.kind} connection (${connection.id})\n`;
  });
};

export const SSO_COMMANDS: Record<string, AdminCommand> = {
  'sso add-saml': addSaml,
  'sso add-oidc': addOidc,
  'sso list': list,
  'sso remove': remove,
};
