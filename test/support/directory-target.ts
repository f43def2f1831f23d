import { waitForEngines } from './launch/bootstrap';
import { uniq } from './helpers';
import { startTarget, type Target, type TargetKind } from './targets';

/** A running Coffer with a fresh directory mount (a cluster mounts directory/ first and waits for the engine). */
export async function startDirectoryTarget(
  kind: TargetKind,
  label: string,
): Promise<{ target: Target; mount: string }> {
  const target = await startTarget(kind, { label });
  if (kind === 'cluster') {
    const res = await target.root.post('sys/mounts/directory', { type: 'directory' });
    if (res.status !== 204) throw new Error(`mounting directory/: ${res.status} ${res.text}`);
    await waitForEngines(target.baseUrl, target.rootToken);
  }
  const mount = uniq('dir');
  const res = await target.root.post(`sys/mounts/${mount}`, { type: 'directory' });
  if (res.status !== 204) throw new Error(`mounting ${mount}/: ${res.status} ${res.text}`);
  return { target, mount };
}
