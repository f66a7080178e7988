// A local CA and a server certificate for 127.0.0.1, ::1 and localhost, made with openssl and kept
// in one folder, so that the service started with WEBHOOK_CA_FILE=<folder>/ca.pem trusts the
// receiver across restarts. Remade when missing or expiring within a day.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VALID_DAYS = '30';

export function localCertificates(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name) => join(dir, name);
  const paths = { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  const valid = () => {
    if (!Object.values(paths).every(existsSync)) return false;
    try {
      openssl('x509', '-checkend', '86400', '-noout', '-in', paths.certFile);
      openssl('x509', '-checkend', '86400', '-noout', '-in', paths.caFile);
      return true;
    } catch {
      return false;
    }
  };
  if (valid()) return { ...paths, created: false };

  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', paths.caFile, '-days', VALID_DAYS,
    '-subj', '/CN=Usage-Governance local webhooks CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', paths.keyFile, '-out', file('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('server.ext'), [
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', paths.caFile, '-CAkey', file('ca.key'),
    '-CAcreateserial', '-out', paths.certFile, '-days', VALID_DAYS, '-extfile', file('server.ext'));
  return { ...paths, created: true };
}
