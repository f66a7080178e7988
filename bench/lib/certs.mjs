// A throwaway CA and a server certificate for 127.0.0.1 signed by it, made with openssl in a temp folder
// (as test/helpers/https-receiver.ts does). The service trusts the CA through WEBHOOK_CA_FILE.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.mjs';

/** `{ dir, caFile, certFile, keyFile, dispose }` */
export function createCertificates() {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-ca-'));
  const dispose = onCleanup(() => rmSync(dir, { recursive: true, force: true }), { sync: true });
  const file = (name) => join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=UGS Bench CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), [
    'subjectAltName=IP:127.0.0.1',
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'),
    '-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'));
  return { dir, caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key'), dispose };
}
