import type { BenchSuite, StandaloneBenchSuite } from '../lib/suite';
import { directorySuite } from './directory.suite';
import { kvSuite } from './kv.suite';
import { kvWriteSuite } from './kv-write.suite';
import { oidcSuite } from './oidc.suite';
import { pkiSuite } from './pki.suite';
import { replicationSuite } from './replication.suite';
import { sshSuite } from './ssh.suite';
import { sentinelSuite } from './sentinel.suite';
import { historySuite } from './history.suite';
import { startupSuite } from './startup.suite';

/** Every engine's benchmark suite, run in this order in each mode (`--suites kv,pki` picks some). */
export const BENCH_SUITES: readonly (BenchSuite | StandaloneBenchSuite)[] = [
  kvSuite,
  pkiSuite,
  sshSuite,
  oidcSuite,
  directorySuite,
  sentinelSuite,
  replicationSuite,
  kvWriteSuite,
  historySuite,
  startupSuite,
];
