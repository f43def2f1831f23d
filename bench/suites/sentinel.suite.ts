import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { compileSentinel, type SentinelInput } from '@coffer/sentinel';
import { httpJson } from '../../test/support/launch/bootstrap';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite } from '../lib/suite';

/** A typical 10-line governing policy: time, network, path and token conditions. */
export const TYPICAL_POLICY = `import "time"
import "strings"
import "sockaddr"

working_hours = rule { time.now.hour >= 0 and time.now.hour < 24 }
from_loopback = rule { sockaddr.is_contained("127.0.0.0/8", request.connection.remote_addr) }
under_secret = rule { strings.has_prefix(request.path, "secret/") }
is_reader = rule { "bench-reader" in token.policies }
main = rule when request.operation in ["read", "list"] {
  working_hours and from_loopback and under_secret and is_reader
}
`;

/**
 * Time of one evaluation of the typical policy in this process (the gateway's cost per governing
 * policy per request, compilation excluded: the gateway compiles once per policy version).
 */
export function measureEvaluation(iterations = 50_000): { microseconds: number; passed: boolean } {
  const policy = compileSentinel(TYPICAL_POLICY);
  const input = (): SentinelInput => ({
    now: new Date(),
    request: {
      path: 'secret/data/bench/r-1',
      operation: 'read',
      data: {},
      connection: { remote_addr: '127.0.0.1' },
    },
    token: { policies: ['default', 'bench-reader'], type: 'service', ttl: 3600, metadata: {} },
  });
  let passed = true;
  for (let i = 0; i < 5_000; i++) passed = policy.evaluate(input()).passed && passed;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) passed = policy.evaluate(input()).passed && passed;
  return { microseconds: ((performance.now() - start) * 1000) / iterations, passed };
}

/** KV v2 reads by a token governed by an RGP and an EGP (both evaluated on every request). */
export const sentinelSuite: BenchSuite = {
  name: 'sentinel',
  targets: [
    {
      scenario: 'KV v2 read under RGP + EGP',
      minRps: 3500,
      maxP99: 20,
      label: 'KV v2 reads governed by an RGP and an EGP ≥ 3,500/s with p99 < 20 ms (one evaluation < 50 µs)',
    },
  ],
  async run(target, shape, log) {
    const evaluation = measureEvaluation();
    log(
      `  sentinel evaluation (typical 10-line policy): ${evaluation.microseconds.toFixed(1)} µs (goal < 50 µs)`,
    );
    if (!evaluation.passed) throw new Error('sentinel bench: the typical policy did not pass');
    await mustWrite(target, 'sys/policies/acl/bench-reader', {
      policy: 'path "secret/data/bench-sentinel/*" { capabilities = ["read"] }',
    });
    await mustWrite(target, 'sys/policies/rgp/bench-reader', {
      policy: TYPICAL_POLICY,
      enforcement_level: 'hard-mandatory',
    });
    await mustWrite(target, 'sys/policies/egp/bench-secret', {
      policy: TYPICAL_POLICY,
      enforcement_level: 'soft-mandatory',
      paths: 'secret/data/bench-sentinel/*',
    });
    await mustWrite(target, 'secret/data/bench-sentinel/r', {
      data: { value: randomBytes(24).toString('base64') },
    });
    const created = await httpJson('POST', `${target.baseUrl}/v1/auth/token/create`, {
      token: target.rootToken,
      body: { policies: ['bench-reader'], ttl: '2h' },
    });
    const token = (created.body as { auth?: { client_token?: string } }).auth?.client_token;
    if (!token) throw new Error(`sentinel bench: token create answered ${created.status}`);
    return [
      await runScenario(target, shape, log, 'KV v2 read under RGP + EGP', {
        path: () => '/v1/secret/data/bench-sentinel/r',
        headers: { 'x-vault-token': token },
      }),
    ];
  },
};
