import { readFile } from 'node:fs/promises';
import { formatNumber } from '../../tools/lib/markdown';

/** How the dev server meets a new user: time to the banner after start, and its idle memory. */
export interface DevStartup {
  readyMs: number;
  /** resident set size of the dev process once idle, MiB */
  idleRssMiB: number;
}

/** Target of the dev server's start: ready in < 3 s, idle RSS < 250 MB (issue 14). */
export const DEV_READY_TARGET_MS = 3000;
export const DEV_IDLE_RSS_TARGET_MIB = 250;

/** Resident set size of a process in MiB, from /proc (Linux); undefined elsewhere. */
export async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

export function devStartupLines(startup: DevStartup): string[] {
  const ready = startup.readyMs < DEV_READY_TARGET_MS ? 'met' : 'not met';
  const rss = startup.idleRssMiB < DEV_IDLE_RSS_TARGET_MIB ? 'met' : 'not met';
  return [
    '## Dev server start-up',
    '',
    `- server ready after start (process spawn to banner): ${formatNumber(startup.readyMs / 1000, 2)} s (target < 3 s: ${ready})`,
    `- idle RSS after start: ${formatNumber(startup.idleRssMiB, 0)} MiB (target < 250 MB: ${rss})`,
    '',
  ];
}

/**
 * The hand-written "## Where the time goes…" sections of the previous report: they hold profile
 * findings no run can regenerate, so a new run keeps them after its own tables.
 */
export function keptSections(previous: string): string[] {
  const sections: string[][] = [];
  for (const line of previous.split('\n')) {
    if (line.startsWith('## ') || sections.length === 0) sections.push([]);
    sections[sections.length - 1]?.push(line);
  }
  return sections
    .filter((lines) => lines[0]?.startsWith('## Where the time goes') === true)
    .map((lines) => lines.join('\n').trimEnd());
}
