import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** PEM files of a throwaway CA and a server certificate it signed for 127.0.0.1 / localhost. */
export interface TestCertificates {
  ca: string;
  cert: string;
  key: string;
  /** the same, as files in the given directory */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Makes a test CA and a server certificate (IP 127.0.0.1, DNS localhost) with `openssl` in `dir`. */
export function makeTestCertificates(dir: string): TestCertificates {
  const run = (args: string[]) => {
    const res = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`openssl ${args[0]}: ${res.stderr}`);
  };
  const subject = (cn: string) => ['-subj', `/CN=${cn}`];
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    ...subject('Coffer test CA'),
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    ...subject('127.0.0.1'),
  ]);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  const file = (f: string) => path.join(dir, f);
  return {
    ca: readFileSync(file('ca.pem'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    key: readFileSync(file('server.key'), 'utf8'),
    caFile: file('ca.pem'),
    certFile: file('server.pem'),
    keyFile: file('server.key'),
  };
}

/**
 * A client certificate (CN `name`, extendedKeyUsage clientAuth) signed by the test CA that
 * makeTestCertificates left in `dir`: files `<name>.pem` and `<name>.key` there.
 */
export function makeTestClientCertificate(dir: string, name: string): { cert: string; key: string } {
  const run = (args: string[]) => {
    const res = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`openssl ${args[0]}: ${res.stderr}`);
  };
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${name}`,
  ]);
  writeFileSync(path.join(dir, `${name}.ext`), 'extendedKeyUsage=clientAuth\n');
  run([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
  return {
    cert: readFileSync(path.join(dir, `${name}.pem`), 'utf8'),
    key: readFileSync(path.join(dir, `${name}.key`), 'utf8'),
  };
}
