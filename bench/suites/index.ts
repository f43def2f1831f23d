import type { BenchSuite } from '../lib/suite';
import { kvSuite } from './kv.suite';
import { pkiSuite } from './pki.suite';

/** Every engine's benchmark suite, run in this order in each mode (`--suites kv,pki` picks some). */
export const BENCH_SUITES: readonly BenchSuite[] = [kvSuite, pkiSuite];
