import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { historyContracts } from '@coffer/contracts';
import type { SignedTreeHead, Verdict } from '@coffer/event-store';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliLocalError, CliUsageError } from '../core/cli-errors';
import { keyValueTable } from '../core/cli-format';

/** A tree head the client trusts: saved by a previous `history verify -state`, or given by flags. */
const trustedStateSchema = z.object({
  log: z.string(),
  tree_size: z.number().int().nonnegative(),
  root_hash: z.string().regex(/^[0-9a-f]{64}$/),
  public_key: z.string().optional(),
});
type TrustedState = z.infer<typeof trustedStateSchema>;

interface VerifyOptions {
  log: string;
  wal?: string;
  publicKey?: string;
  state?: string;
  trustedSize?: string;
  trustedRoot?: string;
}

/**
 * The proof checks, loaded when a verification runs: the event-store lib brings pg, kysely and
 * PGlite along, which every other command would load for nothing.
 */
const merkle = () => import('@coffer/event-store');

function check(verdict: Verdict, what: string): void {
  if (!verdict.ok) throw new CliLocalError(`verification failed (${what}): ${verdict.reason}`);
}

function readTrusted(opts: VerifyOptions): TrustedState | undefined {
  if (opts.trustedSize !== undefined || opts.trustedRoot !== undefined) {
    if (opts.trustedSize === undefined || opts.trustedRoot === undefined) {
      throw new CliUsageError('-trusted-size and -trusted-root go together');
    }
    const parsed = trustedStateSchema.safeParse({
      log: opts.log,
      tree_size: Number(opts.trustedSize),
      root_hash: opts.trustedRoot,
    });
    if (!parsed.success) throw new CliUsageError('invalid -trusted-size or -trusted-root');
    return parsed.data;
  }
  if (opts.state === undefined || !existsSync(opts.state)) return undefined;
  const parsed = trustedStateSchema.safeParse(JSON.parse(readFileSync(opts.state, 'utf8')));
  if (!parsed.success || parsed.data.log !== opts.log) {
    throw new CliLocalError(`${opts.state} is not a saved tree head of log ${opts.log}`);
  }
  return parsed.data;
}

function walList(text: string | undefined): number[] {
  if (text === undefined) return [];
  return text.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isSafeInteger(n) || n < 1) throw new CliUsageError(`invalid WAL index "${part}"`);
    return n;
  });
}

async function signingKey(ctx: CliContext, opts: VerifyOptions, trusted: TrustedState | undefined) {
  const pinned = opts.publicKey !== undefined ? readFileSync(opts.publicKey, 'utf8') : trusted?.public_key;
  const res = await ctx.http.request('GET', 'sys/history/key');
  const served = historyContracts.key.schemas.data.parse(res.body?.data).public_key;
  if (pinned !== undefined && pinned.trim() !== served.trim()) {
    throw new CliLocalError('verification failed: the server signs with another key than the pinned one');
  }
  const { ed25519PublicKey } = await merkle();
  return { key: ed25519PublicKey(pinned ?? served), pem: pinned ?? served, pinned: pinned !== undefined };
}

async function verifyHistory(ctx: CliContext, opts: VerifyOptions): Promise<void> {
  const trusted = readTrusted(opts);
  activity.doing = 'verifying history';
  const { key, pem, pinned } = await signingKey(ctx, opts, trusted);
  const { verifyTreeHead, verifyInclusionProof, verifyConsistencyProof } = await merkle();
  const headRes = await ctx.http.request('GET', 'sys/history/tree-head', { query: { log: opts.log } });
  const head: SignedTreeHead = historyContracts.treeHead.schemas.data.parse(headRes.body?.data);
  check(verifyTreeHead(head, key), 'tree head');
  const size = head.tree_size;

  const wals = walList(opts.wal);
  for (const wal of wals) {
    const res = await ctx.http.request('GET', 'sys/history/proof', {
      query: { log: opts.log, wal, tree_size: size },
    });
    const proof = historyContracts.proof.schemas.data.parse(res.body?.data);
    check(verifyInclusionProof(proof, key), `event ${wal}`);
    if (proof.root_hash !== head.root_hash)
      throw new CliLocalError(`verification failed: two roots for size ${size}`);
  }

  if (trusted) {
    if (trusted.tree_size > size)
      throw new CliLocalError('verification failed: the log is shorter than the trusted tree');
    const res = await ctx.http.request('GET', 'sys/history/consistency', {
      query: { log: opts.log, from: trusted.tree_size, to: size },
    });
    const proof = historyContracts.consistency.schemas.data.parse(res.body?.data);
    check(verifyConsistencyProof(proof, trusted, key), `consistency with the tree of ${trusted.tree_size}`);
    if (proof.second_root !== head.root_hash)
      throw new CliLocalError(`verification failed: two roots for size ${size}`);
  }
  if (opts.state !== undefined) {
    const saved: TrustedState = {
      log: opts.log,
      tree_size: size,
      root_hash: head.root_hash,
      public_key: pem,
    };
    writeFileSync(opts.state, `${JSON.stringify(saved, null, 2)}\n`);
  }

  const body = {
    data: {
      log: opts.log,
      tree_size: size,
      root_hash: head.root_hash,
      signed_at: head.timestamp,
      key: pinned ? 'pinned' : 'as served (pin it with -public-key or -state)',
      events_proven: wals,
      consistent_with: trusted ? trusted.tree_size : null,
    },
  };
  ctx.output(body, () =>
    keyValueTable(
      Object.entries(body.data).map(([k, v]): [string, unknown] => [k, Array.isArray(v) ? v.join(',') : v]),
    ),
  );
}

/** `history verify`: checks the server's proofs locally, trusting only a pinned key or saved head. */
export function registerHistoryCommands(program: Command, deps: CliDeps): void {
  const history = program.command('history').description('verify the event log with Merkle proofs');
  history
    .command('verify')
    .description(
      'verify the signed tree head, inclusion proofs of events (-wal) and that the log extends a trusted tree head (-state, -trusted-size/-trusted-root)',
    )
    .option('--log <schema>', 'the service log (core_sys, kv, ...)', 'core_sys')
    .option('--wal <list>', 'WAL indexes of events to prove, comma-separated')
    .option('--public-key <file>', 'PEM of the Ed25519 key the tree heads must be signed with')
    .option('--state <file>', 'trusted tree head: checked against, then replaced by the verified one')
    .option('--trusted-size <n>', 'size of a tree head you trust')
    .option('--trusted-root <hex>', 'root hash of that tree head')
    .action(
      action<VerifyOptions>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        await verifyHistory(ctx, opts);
      }),
    );
}
