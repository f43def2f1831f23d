import { waitForEngines } from './launch/bootstrap';
import { uniq } from './helpers';
import { startTarget, type Target, type TargetKind } from './targets';
import type { ClusterOptions } from './test-cluster';

/**
 * A running Coffer with a fresh cloud-b mount (a cluster mounts cloud-b/ first, the engine's
 * readiness path, and waits for the service).
 */
export async function startCloudBTarget(
  kind: TargetKind,
  label: string,
  options: ClusterOptions = {},
): Promise<{ target: Target; mount: string }> {
  // cluster start-up on a loaded 2-core machine can take well over a minute per process
  const target = await startTarget(kind, { label, readyTimeoutMs: 170_000, ...options });
  if (kind === 'cluster') {
    const res = await target.root.post('sys/mounts/cloud-b', { type: 'cloud-b' });
    if (res.status !== 204) throw new Error(`mounting cloud-b/: ${res.status} ${res.text}`);
    await waitForEngines(target.baseUrl, target.rootToken);
  }
  const mount = uniq('aws');
  const res = await target.root.post(`sys/mounts/${mount}`, { type: 'cloud-b' });
  if (res.status !== 204) throw new Error(`mounting ${mount}/: ${res.status} ${res.text}`);
  return { target, mount };
}
