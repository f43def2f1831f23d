import {
  engineReplicaProvider,
  mountOfStream,
  replayable,
  type EngineReplicaSpec,
  type ServiceRuntime,
} from '@coffer/event-store';
import type { ReplicationMode } from '@coffer/contracts/replication';
import { CaService } from '../ca/ca.service';
import { OTP_LOG } from '../otp/otp.events';
import { OtpProjection } from '../otp/otp.projection';
import { RECORD_KINDS, RECORD_LOG, type RecordKey, type RecordKind } from '../records/record.events';
import { RecordProjection } from '../records/record.projection';
import { SshDb, type SshTrx } from '../shared/ssh.table';
import { SSH_EVENT_STORE } from '../ssh.di';

/** `<prefix>/<mount uuid>/<rest>` → uuid, rest (mount uuids never contain "/"; rest may). */
function splitStream(stream: string): { prefix: string; mountUuid: string; rest: string } {
  const [prefix, mountUuid] = stream.split('/', 2);
  if (prefix === undefined || mountUuid === undefined || mountUuid === '')
    throw new Error(`ssh replay: unexpected stream ${stream}`);
  return { prefix, mountUuid, rest: stream.slice(prefix.length + mountUuid.length + 2) };
}

function recordKindOf(prefix: string): RecordKind {
  const kind = RECORD_KINDS.find((k) => `ssh-${k}` === prefix);
  if (!kind) throw new Error(`ssh replay: unexpected record stream ${prefix}/`);
  return kind;
}

/**
 * What stays with the cluster that wrote it (Vault's `PathsSpecial.LocalStorage` of the ssh
 * backend is `otp/`): one-time passwords, issued by `creds/:role` and consumed by `verify` on the
 * same cluster, and the salt that hashes them (Vault replicates its salt; here a performance
 * secondary salts its own OTPs, so the primary's salt arriving later can never re-key the OTPs it
 * already issued). A performance secondary neither projects nor folds these; a DR secondary
 * takes them (once promoted it verifies the primary's outstanding OTPs).
 */
export const isClusterLocalStream = (stream: string): boolean =>
  stream.startsWith('ssh-otp/') || stream.startsWith('ssh-salt/');

/** Which replicated events a cluster projects in `mode` (and a promotion folds). */
export const sshReplicated = (stream: string, mode: ReplicationMode): boolean =>
  mode === 'dr' || !isClusterLocalStream(stream);

export interface SshReplayDeps {
  db: SshDb;
  records: RecordProjection;
  otps: OtpProjection;
  ca: Pick<CaService, 'forgetSigners'>;
}

/**
 * How a secondary's ssh service replays the primary's ssh log with its own projections: the CA
 * key pair, registered keys, roles and zero-address list (both modes; Vault replicates them), the
 * OTPs and their salt (DR only, see isClusterLocalStream). The private keys stay sealed: the
 * record projection seals each value with this cluster's barrier, as the primary's append did.
 */
export function sshReplica(d: SshReplayDeps): EngineReplicaSpec {
  const recordExists = async (trx: SshTrx, key: Omit<RecordKey, 'exists'>): Promise<boolean> =>
    (await d.db
      .of(trx)
      .selectFrom('records')
      .select('name')
      .where('mount_uuid', '=', key.mountUuid)
      .where('kind', '=', key.kind)
      .where('name', '=', key.name)
      .executeTakeFirst()) !== undefined;
  return {
    // a CA replaced (or wiped and streamed again) keeps no parsed signer of the old one
    onChanged: () => d.ca.forgetSigners(),
    replayables: [
      replayable(RECORD_LOG, d.records, async (trx, stream, _events, ctx): Promise<RecordKey | null> => {
        if (!sshReplicated(stream, ctx.mode)) return null;
        const { prefix, mountUuid, rest: name } = splitStream(stream);
        const key = { mountUuid, kind: recordKindOf(prefix), name };
        return { ...key, exists: await recordExists(trx as SshTrx, key) };
      }),
      replayable(OTP_LOG, d.otps, (_trx, stream, _events, ctx) => {
        if (!sshReplicated(stream, ctx.mode)) return null;
        const { mountUuid, rest: hash } = splitStream(stream);
        return { mountUuid, hash };
      }),
    ],
    // the log holds every value whole (the read model seals it again): nothing to attach
    foldable: (event, mode) => sshReplicated(event.stream, mode),
    // a disabled mount's records and OTPs are purged outside the log (mount-purge.handlers.ts)
    mountOf: mountOfStream,
  };
}

/** The ssh service's replica endpoint and promotion fold, for its module's providers. */
export const sshReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(
    runtime,
    SSH_EVENT_STORE,
    [SshDb, RecordProjection, OtpProjection, CaService],
    (db: SshDb, records: RecordProjection, otps: OtpProjection, ca: CaService) =>
      sshReplica({ db, records, otps, ca }),
  );
