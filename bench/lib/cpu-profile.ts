import { readFile } from 'node:fs/promises';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '~/')
    .replace(/^.*\/work\/main\//, '');

/** A span of the monotonic clock (process.hrtime, µs) every process on the host shares. */
export interface Window {
  fromUs: number;
  toUs: number;
  /** requests served in the window, to report CPU per request */
  requests: number;
}

/**
 * Self time per function and per file (package for node_modules) of a V8 .cpuprofile, as text,
 * counting only samples inside `window` (the load, not start-up). Idle and GC keep their own
 * rows so the share of real work is visible.
 */
export async function summariseProfile(file: string, top: number, window: Window): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= window.fromUs && at <= window.toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  let idle = 0;
  for (const [id, us] of selfUs) if (byId.get(id)?.callFrame.functionName === '(idle)') idle += us;
  const fn = new Map<string, number>();
  const where = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const url = shortUrl(frame.url);
    const key = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const pkg = url.startsWith('~/')
      ? url
          .split('/')
          .slice(0, url.startsWith('~/@') ? 3 : 2)
          .join('/')
      : url || frame.functionName;
    where.set(pkg, (where.get(pkg) ?? 0) + us);
  }
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, us]) =>
          `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`,
      )
      .join('\n');
  const busyUs = total - idle;
  const perRequest = window.requests > 0 ? (busyUs / window.requests).toFixed(0) : '-';
  return `window ${(total / 1e6).toFixed(1)} s, busy ${(busyUs / 1e6).toFixed(1)} s, ${perRequest} µs CPU per request\n-- by function --\n${rows(fn)}\n-- by file/package --\n${rows(where)}`;
}
