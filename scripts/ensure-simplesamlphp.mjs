// The SAML browser tests sign in through a real identity provider: Debian's SimpleSAMLphp, run
// from a temporary directory by e2e/src/saml-idp.ts. This installs the package when it is missing
// and the machine allows (root with apt-get); otherwise it says what to do. Without it those tests
// are skipped with a message, unless REQUIRE_SAML_IDP=1 (CI), which makes them fail.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SIMPLESAMLPHP = '/usr/share/simplesamlphp';
const PHP = '/usr/bin/php';
// Debian's package does not depend on PHP's XML extension, without which it cannot answer at all.
const installed = () => {
  if (!existsSync(`${SIMPLESAMLPHP}/www/saml2/idp/SSOService.php`) || !existsSync(PHP)) return false;
  try {
    execFileSync(PHP, ['-r', 'exit(extension_loaded("dom") && extension_loaded("mbstring") ? 0 : 1);'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

if (installed()) {
  console.warn(`SimpleSAMLphp: ${SIMPLESAMLPHP}`);
  process.exit(0);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (isRoot && hasApt) {
  console.warn("SimpleSAMLphp is missing: installing Debian's simplesamlphp package…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    // php-cli serves the IdP in the tests (`php -S`); no web server or its configuration is needed.
    execFileSync('apt-get', ['install', '-y', '-qq', 'simplesamlphp', 'php-cli', 'php-xml', 'php-mbstring'], { stdio: 'inherit', env });
  } catch {
    // Reported below.
  }
  if (installed()) process.exit(0);
}

const message =
  'SimpleSAMLphp was not found and could not be installed here, so the SAML browser tests will be skipped. ' +
  'Install it (Debian: `sudo apt-get install simplesamlphp php-cli php-xml php-mbstring`) to run them.';
if (process.env.REQUIRE_SAML_IDP === '1') {
  console.error(`${message} REQUIRE_SAML_IDP=1 is set: failing.`);
  process.exit(1);
}
console.warn(message);
