import { coreLeaseRegister, type MountInfo } from '@coffer/contracts';
import type { Transport } from '@coffer/transport';
import type { EngineResult } from './envelope';

/**
 * An engine answered with `secret`: core-sys registers the lease (committed before the client
 * sees the id) and the envelope carries lease_id, lease_duration and renewable. The secret's
 * internal data never reaches the client.
 */
export async function registerLease(
  transport: Transport,
  result: EngineResult,
  at: { path: string; mount: MountInfo; service: string },
  opts: { headers: Record<string, string>; timeoutMs: number },
): Promise<EngineResult> {
  if (!result.secret) return result;
  const { secret, ...rest } = result;
  const lease = await transport.request(
    coreLeaseRegister,
    { path: at.path, mount: at.mount, service: at.service, secret },
    { ...opts, write: true },
  );
  return { ...rest, lease };
}
