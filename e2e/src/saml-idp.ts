import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './harness.ts';

/**
 * Debian's SimpleSAMLphp (package `simplesamlphp`) as a real SAML 2.0 identity provider, run by
 * PHP's built-in web server from a temporary directory: its own config.php, authsources.php,
 * hosted-IdP and SP metadata, and a signing key made with openssl there. SIMPLESAMLPHP_CONFIG_DIR
 * points SimpleSAMLphp at that directory, so /etc/simplesamlphp and the PHP session directory of
 * the machine are never read or written. `php -S` resolves SimpleSAMLphp's `module.php/...`
 * addresses (PATH_INFO) and serves its static resources itself, so no router script is needed.
 */

const SIMPLESAMLPHP_WWW = '/usr/share/simplesamlphp/www';
const PHP = '/usr/bin/php';

/** A person of the IdP's exampleauth:UserPass source. */
export interface SamlIdpUser {
  username: string;
  password: string;
  email: string;
  givenName: string;
  familyName: string;
}

export interface SamlIdp {
  /** The IdP's metadata address, for `sso add-saml --metadata`. */
  metadataUrl: string;
  /** Where its login page lives (for assertions on the browser's address). */
  origin: string;
  /**
   * Registers a service provider from its metadata address (Foyer's
   * `/sso/saml/<connection>/metadata`), as an IdP administrator pastes an SP's metadata.
   */
  trustServiceProvider(metadataUrl: string): Promise<void>;
  /** What the IdP printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Why SimpleSAMLphp cannot run here, or undefined when it can. */
export function simpleSamlPhpMissing(): string | undefined {
  if (!existsSync(join(SIMPLESAMLPHP_WWW, 'saml2/idp/SSOService.php'))) return `${SIMPLESAMLPHP_WWW} is missing`;
  if (!existsSync(PHP)) return `${PHP} is missing`;
  try {
    execFileSync(PHP, ['-r', 'exit(extension_loaded("dom") && extension_loaded("mbstring") ? 0 : 1);'], { stdio: 'ignore' });
  } catch {
    return "PHP's dom or mbstring extension is missing (php-xml, php-mbstring)";
  }
  return undefined;
}

/** A PHP file that reads its array from JSON beside it: nothing is spliced into PHP source. */
function phpFromJson(variable: string, jsonFile: string, merge = false): string {
  const value = `json_decode(file_get_contents(__DIR__ . '/${jsonFile}'), true, 512, JSON_THROW_ON_ERROR)`;
  return merge ? `<?php\nforeach (${value} as $key => $entry) {\n    $${variable}[$key] = $entry;\n}\n` : `<?php\n$${variable} = ${value};\n`;
}

function attributeOf(xml: string, element: RegExp, attribute: string): string | undefined {
  const tag = element.exec(xml)?.[0];
  return tag === undefined ? undefined : new RegExp(`\\s${attribute}="([^"]+)"`).exec(tag)?.[1];
}

export async function startSamlIdp(users: SamlIdpUser[]): Promise<SamlIdp> {
  const missing = simpleSamlPhpMissing();
  if (missing !== undefined) throw new Error(`SimpleSAMLphp cannot run here: ${missing}. Run \`node scripts/ensure-simplesamlphp.mjs\`.`);

  const dir = mkdtempSync(join(tmpdir(), 'foyer-saml-idp-'));
  const configDir = join(dir, 'config');
  const metadataDir = join(dir, 'metadata');
  const certDir = join(dir, 'cert');
  const dataDir = join(dir, 'data');
  const sessionDir = join(dir, 'sessions');
  for (const path of [configDir, metadataDir, certDir, dataDir, sessionDir]) mkdirSync(path);

  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '2',
      '-subj',
      '/CN=Foyer test SAML IdP',
      '-keyout',
      join(certDir, 'idp.key'),
      '-out',
      join(certDir, 'idp.crt'),
    ],
    { stdio: 'ignore' },
  );

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;

  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      baseurlpath: `${origin}/`,
      certdir: `${certDir}/`,
      loggingdir: `${dataDir}/`,
      datadir: `${dataDir}/`,
      tempdir: `${dataDir}/`,
      metadatadir: `${metadataDir}/`,
      'metadata.sources': [{ type: 'flatfile', directory: `${metadataDir}/` }],
      technicalcontact_name: 'Foyer tests',
      technicalcontact_email: 'na@example.org',
      timezone: 'UTC',
      secretsalt: randomBytes(24).toString('hex'),
      'auth.adminpassword': randomBytes(24).toString('hex'),
      'admin.protectindexpage': true,
      'admin.protectmetadata': false,
      'admin.checkforupdates': false,
      'enable.saml20-idp': true,
      'enable.shib13-idp': false,
      'enable.adfs-idp': false,
      showerrors: true,
      errorreporting: false,
      // SimpleSAML\Logger::WARNING; to PHP's error log, which is the server's standard error.
      'logging.level': 4,
      'logging.handler': 'errorlog',
      'module.enable': { exampleauth: true, core: true, saml: true },
      'store.type': 'phpsession',
      'session.phpsession.savepath': sessionDir,
      // Plain http on the loopback address: a Secure cookie would never come back.
      'session.cookie.secure': false,
      'session.cookie.samesite': null,
      'language.cookie.secure': false,
      'language.default': 'en',
      production: true,
    }),
  );
  writeFileSync(join(configDir, 'config.php'), phpFromJson('config', 'config.json'));

  // exampleauth:UserPass takes its class at index 0 and each `username:password` key's attributes.
  const people: Record<string, unknown> = { 0: 'exampleauth:UserPass' };
  for (const user of users) {
    people[`${user.username}:${user.password}`] = { uid: [user.username], email: [user.email], givenName: [user.givenName], sn: [user.familyName] };
  }
  writeFileSync(join(configDir, 'authsources.json'), JSON.stringify({ admin: { 0: 'core:AdminPassword' }, people }));
  writeFileSync(join(configDir, 'authsources.php'), phpFromJson('config', 'authsources.json'));

  writeFileSync(
    join(metadataDir, 'saml20-idp-hosted.json'),
    JSON.stringify({
      '__DYNAMIC:1__': {
        host: '__DEFAULT__',
        privatekey: 'idp.key',
        certificate: 'idp.crt',
        auth: 'people',
        // Assertions are signed (SimpleSAMLphp's default, which Foyer requires); said outright.
        'saml20.sign.assertion': true,
        NameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        'simplesaml.nameidattribute': 'uid',
      },
    }),
  );
  writeFileSync(join(metadataDir, 'saml20-idp-hosted.php'), phpFromJson('metadata', 'saml20-idp-hosted.json', true));
  const serviceProviders: Record<string, unknown> = {};
  const writeServiceProviders = () => writeFileSync(join(metadataDir, 'saml20-sp-remote.json'), JSON.stringify(serviceProviders));
  writeServiceProviders();
  writeFileSync(join(metadataDir, 'saml20-sp-remote.php'), phpFromJson('metadata', 'saml20-sp-remote.json', true));

  const child: ChildProcess = spawn(
    PHP,
    ['-d', `session.save_path=${sessionDir}`, '-d', 'display_errors=0', '-d', 'log_errors=1', '-S', `127.0.0.1:${port}`, '-t', SIMPLESAMLPHP_WWW],
    {
      // A few workers: one server process would wait on a connection Chromium opened ahead and
      // left idle, and every other request of the sign-in would wait behind it. The workers
      // share the process group, which `stop` ends as a whole.
      env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: configDir, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  // Detached, so it would outlive a test run that dies: end the group with this process too.
  const endGroup = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  process.once('exit', endGroup);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      endGroup();
      await exited;
    }
    process.removeListener('exit', endGroup);
    rmSync(dir, { recursive: true, force: true });
  };

  const metadataUrl = `${origin}/saml2/idp/metadata.php`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`SimpleSAMLphp exited early (${child.exitCode}):\n${output}`);
    }
    try {
      const response = await fetch(metadataUrl);
      const text = await response.text();
      if (response.ok && text.includes('IDPSSODescriptor')) break;
      if (Date.now() > deadline) throw new Error(`metadata answered ${response.status}`);
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`SimpleSAMLphp did not serve its metadata (${String(error)}):\n${output}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    metadataUrl,
    origin,
    trustServiceProvider: async (spMetadataUrl) => {
      const response = await fetch(spMetadataUrl);
      const xml = await response.text();
      const entityId = attributeOf(xml, /<(?:\w+:)?EntityDescriptor\b[^>]*>/, 'entityID');
      const acs = attributeOf(xml, /<(?:\w+:)?AssertionConsumerService\b[^>]*HTTP-POST[^>]*>/, 'Location');
      if (!response.ok || entityId === undefined || acs === undefined) {
        throw new Error(`unusable SP metadata at ${spMetadataUrl} (${response.status}): ${xml.slice(0, 300)}`);
      }
      serviceProviders[entityId] = {
        entityid: entityId,
        AssertionConsumerService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', Location: acs }],
      };
      writeServiceProviders();
    },
    output: () => output,
    stop,
  };
}
