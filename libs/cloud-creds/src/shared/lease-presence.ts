import { coreLeasesHeld } from '@coffer/contracts';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';

/**
 * How long after "issued" a credential's lease may still be on its way. The engine answers, then
 * the gateway has core-sys register the lease and waits for it at most its engine time-out
 * (`controller.engine_timeout`, 10 s by default): a client can only hold a credential whose lease
 * committed within that wait. Three times the default leaves room for a loaded core-sys; an
 * operator raising engine_timeout past 30 s shortens the margin (docs/cloud-a.md, cloud-b.md).
 */
export const LEASE_REGISTRATION_GRACE_MS = 30_000;
/** Clock skew between this service's replicas and core-sys's, allowed for in `since`. */
const SKEW_MS = 60_000;
const ASK_TIMEOUT_MS = 10_000;

/**
 * Which of `values` (the credentials' ids, as kept under `field` in their lease's internal data)
 * have a lease in core-sys. `issuedSince` is the earliest "issued" time among them: older leases
 * cannot be theirs. Throws when core-sys does not answer (the caller retries next pass).
 */
export async function leasesHeld(
  runtime: Pick<ServiceRuntime, 'transport'>,
  ask: { mountUuid: string; field: string; values: readonly string[]; issuedSince: Date },
): Promise<Set<string>> {
  if (ask.values.length === 0) return new Set();
  const answer = await runtime.transport.request(
    coreLeasesHeld,
    {
      mount_uuid: ask.mountUuid,
      field: ask.field,
      values: [...ask.values],
      since: Math.max(0, ask.issuedSince.getTime() - SKEW_MS),
    },
    { timeoutMs: ASK_TIMEOUT_MS },
  );
  return new Set(answer.held);
}

/** An issued credential awaiting the lease check: its record's name and the version read. */
export interface IssuedRecord {
  name: string;
  version: number;
  issuedAt: Date;
}

/** Where a recovery pass reports (Nest's Logger fits). */
export interface RecoveryLogger {
  warn(message: string): void;
}

/**
 * The lease check of one mount's issued credentials past the grace: those core-sys holds a lease
 * for are confirmed (the lease alone ends them from now on), the others are removed outside.
 * Answers how many were removed; what fails is logged and left for the next pass.
 */
export async function settleIssued(
  runtime: Pick<ServiceRuntime, 'transport'>,
  logger: RecoveryLogger,
  check: {
    /** "cloud-a credential", "cloud-b user" (log lines) */
    what: string;
    mountUuid: string;
    /** the key of the lease's internal data naming the record */
    field: string;
    records: readonly IssuedRecord[];
    confirm(record: IssuedRecord): Promise<unknown>;
    remove(record: IssuedRecord): Promise<unknown>;
  },
): Promise<number> {
  let held: Set<string>;
  try {
    held = await leasesHeld(runtime, {
      mountUuid: check.mountUuid,
      field: check.field,
      values: check.records.map((r) => r.name),
      issuedSince: new Date(Math.min(...check.records.map((r) => r.issuedAt.getTime()))),
    });
  } catch (error) {
    logger.warn(`${check.what} lease check failed, retried next pass: ${describeError(error)}`);
    return 0;
  }
  let removed = 0;
  for (const record of check.records) {
    if (held.has(record.name)) {
      await attemptRecovery(logger, `${check.what} ${record.name}`, () => check.confirm(record));
      continue;
    }
    logger.warn(`${check.what} ${record.name} was issued but no lease was registered: removing it`);
    const done = await attemptRecovery(logger, `${check.what} ${record.name}`, async () => {
      await check.remove(record);
      return true;
    });
    if (done) removed++;
  }
  return removed;
}

/** One record's recovery work: a failure is logged and left for the next pass (a lost race is no failure). */
export async function attemptRecovery<T>(
  logger: RecoveryLogger,
  label: string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!isConcurrencyError(error))
      logger.warn(`${label}: recovery failed, retried next pass: ${describeError(error)}`);
    return undefined;
  }
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : 'unknown error');
