import { Injectable } from '@nestjs/common';
import { historyContracts as c, invalidRequest, notFound, type ResponseOf } from '@coffer/contracts';
import {
  collectSubtrees,
  consistencyPath,
  EventLogReader,
  inclusionPath,
  lookupFrom,
  treeRoot,
  type SignedTreeHead,
  type SubtreeLookup,
} from '@coffer/event-store';
import { HistoryKey } from './history-key';
import { MerkleIndex } from './merkle-index.service';

const LOGS_TTL_MS = 5_000;
const hex = (b: Buffer): string => b.toString('hex');

/**
 * sys/history proofs: signed tree heads, inclusion and consistency proofs over any service's log
 * (docs/history.md). Each answer first brings the Merkle index up to the tree it proves, then
 * fetches the O(log n) subtrees the proof names in one round trip.
 */
@Injectable()
export class HistoryProofService {
  private logsCache: { at: number; logs: string[] } | undefined;

  constructor(
    private readonly reader: EventLogReader,
    private readonly index: MerkleIndex,
    private readonly key: HistoryKey,
  ) {}

  async publicKey(): Promise<ResponseOf<typeof c.key>> {
    const key = await this.key.get();
    return {
      data: {
        algorithm: 'ed25519',
        public_key: key.publicKeyPem,
        key_id: key.keyId,
        created_at: key.createdAt.toISOString(),
      },
    };
  }

  async logs(): Promise<ResponseOf<typeof c.logs>> {
    return { data: { keys: await this.knownLogs() } };
  }

  async treeHead(log: string, treeSize: number | undefined): Promise<ResponseOf<typeof c.treeHead>> {
    const size = await this.treeSize(log, treeSize, 'tree_size');
    return { data: await this.signedHead(log, size) };
  }

  async proof(
    log: string,
    wal: number | undefined,
    treeSize: number | undefined,
  ): Promise<ResponseOf<typeof c.proof>> {
    if (wal === undefined) throw invalidRequest('missing wal');
    const size = await this.treeSize(log, treeSize, 'tree_size');
    if (wal < 1 || wal > size) throw invalidRequest(`wal ${wal} is not in the tree of ${size} events`);
    const entry = await this.reader.chained(log, wal);
    if (!entry) throw notFound();
    const { result: path, sth } = await this.withSubtrees(log, size, (get) =>
      inclusionPath(wal - 1, size, get),
    );
    return {
      data: {
        log,
        leaf_index: wal - 1,
        tree_size: size,
        audit_path: path.map(hex),
        root_hash: sth.root_hash,
        entry: {
          wal: entry.wal,
          stream: entry.stream,
          stream_version: entry.streamVersion,
          type: entry.type,
          schema_version: entry.schemaVersion,
          payload: entry.payload.toString('base64'),
          prev_hash: entry.prevHash,
          hash: entry.hash,
          recorded_at: entry.recordedAt.toISOString(),
        },
        signed_tree_head: sth,
      },
    };
  }

  async consistency(
    log: string,
    from: number | undefined,
    to: number | undefined,
  ): Promise<ResponseOf<typeof c.consistency>> {
    if (from === undefined) throw invalidRequest('missing from');
    const second = await this.treeSize(log, to, 'to');
    if (from < 0 || from > second) throw invalidRequest(`from must be between 0 and ${second}`);
    const { result, sth } = await this.withSubtrees(log, second, (get) => ({
      proof: consistencyPath(from, second, get),
      firstRoot: treeRoot(from, get),
    }));
    return {
      data: {
        log,
        first: from,
        second,
        first_root: hex(result.firstRoot),
        second_root: sth.root_hash,
        proof: result.proof.map(hex),
        signed_tree_head: sth,
      },
    };
  }

  /** Runs `compute` over the tree of `size` with every subtree it reads fetched at once; signs the root. */
  private async withSubtrees<T>(
    log: string,
    size: number,
    compute: (get: SubtreeLookup) => T,
  ): Promise<{ result: T; sth: SignedTreeHead }> {
    await this.index.catchUp(log, size);
    const both = (get: SubtreeLookup) => ({ result: compute(get), root: treeRoot(size, get) });
    const fetched = await this.index.subtrees(log, collectSubtrees(both));
    const { result, root } = both(lookupFrom(fetched));
    const sth = await this.key.signTreeHead({ log, tree_size: size, root_hash: hex(root) });
    return { result, sth };
  }

  private async signedHead(log: string, size: number): Promise<SignedTreeHead> {
    return (await this.withSubtrees(log, size, () => undefined)).sth;
  }

  /** The requested size (default: the log's head), checked against the log. */
  private async treeSize(log: string, requested: number | undefined, field: string): Promise<number> {
    if (!(await this.knownLogs()).includes(log)) throw invalidRequest(`unknown log "${log}"`);
    const head = (await this.reader.head(log)).lastWal;
    if (requested === undefined) return head;
    if (requested < 0 || requested > head) throw invalidRequest(`${field} must be between 0 and ${head}`);
    return requested;
  }

  private async knownLogs(): Promise<string[]> {
    const now = Date.now();
    if (this.logsCache && now - this.logsCache.at < LOGS_TTL_MS) return this.logsCache.logs;
    const logs = await this.reader.schemas();
    this.logsCache = { at: now, logs };
    return logs;
  }
}
