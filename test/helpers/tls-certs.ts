import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  /** PEM of the throw-away CA (what NATS_CA points at). */
  caFile: string;
  /**
   * Server certificate for 127.0.0.1 signed by the CA, and its key. It also names `localhost`: nats.js
   * upgrades a connection to an IP address without a TLS server name, so Node checks it against `localhost`.
   */
  certFile: string;
  keyFile: string;
  /** Removes the files. */
  remove(): Promise<void>;
}

/** A fresh CA and a server certificate for 127.0.0.1, made with openssl in a temp dir (1 day, EC P-256). */
export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'actorflow-tls-'));
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run(process.env.OPENSSL_BIN ?? '/usr/bin/openssl', args);
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    await openssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1', '-subj', '/CN=ActorFlow test CA');
    await openssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
    await writeFile(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    await openssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f('server.pem'), '-days', '1', '-extfile', f('san.ext'));
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return { caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key'), remove: () => rm(dir, { recursive: true, force: true }) };
}
