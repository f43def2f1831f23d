import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitForEngines } from './launch/bootstrap';
import { startTarget, type Target, type TargetKind } from './targets';
import { uniq } from './helpers';

/** A running Coffer with ssh/ mounted (dev mode mounts it; a cluster mounts it here), a fresh ssh mount and a temp dir. */
export interface SshTarget {
  target: Target;
  /** a fresh ssh mount of this test file */
  mount: string;
  /** a temp dir for keys, certificates and sshd files */
  dir: string;
  stop(): Promise<void>;
}

export async function startSshTarget(kind: TargetKind, label: string): Promise<SshTarget> {
  const target = await startTarget(kind, { label });
  if (kind === 'cluster') {
    const res = await target.root.post('sys/mounts/ssh', { type: 'ssh' });
    if (res.status !== 204) throw new Error(`mounting ssh/: ${res.status} ${res.text}`);
    await waitForEngines(target.baseUrl, target.rootToken);
  }
  const mount = uniq('ssh');
  const res = await target.root.post(`sys/mounts/${mount}`, { type: 'ssh' });
  if (res.status !== 204) throw new Error(`mounting ${mount}/: ${res.status} ${res.text}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'coffer-ssh-'));
  return {
    target,
    mount,
    dir,
    stop: async () => {
      await target.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The answer is a 400 whose only error is `text` (or matches it). */
export async function expect400(
  res: Promise<{ status: number; body: any }>,
  text: string | RegExp,
): Promise<void> {
  const { status, body } = await res;
  expect({ status, errors: body.errors }).toEqual({
    status: 400,
    errors: [typeof text === 'string' ? text : expect.stringMatching(text)],
  });
}
