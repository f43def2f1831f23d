import type { BenchSuite } from '../lib/suite';
import { kvSuite } from './kv.suite';
import { oidcSuite } from './oidc.suite';
import { sshSuite } from './ssh.suite';
import { directorySuite } from './directory.suite';

/** Every engine's benchmark suite, run in this order in each mode (`--suites kv,pki` picks some). */
export const BENCH_SUITES: readonly BenchSuite[] = [kvSuite, sshSuite, oidcSuite, directorySuite];
