import type { z } from 'zod';

/** Exit code of an app whose configuration is invalid (like a usage error). */
export const CONFIG_EXIT_CODE = 2;

/**
 * Invalid configuration. `issues` lists every problem found ("listener[0].address: ..."), so an
 * operator can fix them all in one go; the message renders them one per line.
 */
export class ConfigError extends Error {
  constructor(
    readonly issues: string[],
    readonly source?: string,
  ) {
    super(
      `invalid configuration${source ? ` in ${source}` : ''}:\n${issues.map((i) => `  - ${i}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** "listener[0].address", "service.kv.replicas" */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

export function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const where = formatPath(i.path);
    return where ? `${where}: ${i.message}` : i.message;
  });
}
