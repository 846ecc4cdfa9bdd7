// Throwaway keys and self-signed certificates for the parties the harness plays: the Google
// provider's TLS certificate and the SAML IdP's signing key. Made with openssl for each run, as
// the e2e SAML IdP's are, in the run's temp folder.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An RSA-2048 key and a self-signed certificate valid for two days, as `<dir>/<name>.key` and
 * `<dir>/<name>.crt`; `ip` adds it as the certificate's subjectAltName (a TLS server's address).
 */
export function selfSignedCertificate(dir, name, { subject, ip } = {}) {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
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
      `/CN=${subject ?? name}`,
      ...(ip ? ['-addext', `subjectAltName=IP:${ip}`] : []),
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile, key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
}
