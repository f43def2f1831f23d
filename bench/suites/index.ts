import type { BenchSuite } from '../lib/suite';
import { directorySuite } from './directory.suite';
import { kvSuite } from './kv.suite';
import { oidcSuite } from './oidc.suite';
import { pkiSuite } from './pki.suite';
import { sshSuite } from './ssh.suite';

/** Every engine's benchmark suite, run in this order in each mode (`--suites kv,pki` picks some). */
export const BENCH_SUITES: readonly BenchSuite[] = [kvSuite, pkiSuite, sshSuite, oidcSuite, directorySuite];
