import { homedir } from 'node:os';
import { z } from 'zod';

/**
 * The CLI's one configuration schema, read from the environment at start-up as Vault's CLI
 * reads it: COFFER_* first, then the VAULT_* spelling so existing shells and scripts carry over.
 * Flags given on the command line override these (see cli-context.ts).
 */
const cliConfigSchema = z.object({
  address: z.string().min(1),
  token: z.string().optional(),
  namespace: z.string().optional(),
  format: z.enum(['table', 'json', 'yaml']).optional(),
  caCert: z.string().optional(),
  tlsSkipVerify: z.boolean(),
  wrapTtl: z.string().optional(),
  home: z.string().min(1),
  noColor: z.boolean(),
  /** the whole environment, handed unchanged to `server -dev` and to `ssh` */
  childEnv: z.record(z.string(), z.string()),
});
export type CliConfig = z.infer<typeof cliConfigSchema>;

const truthy = (v: string | undefined): boolean =>
  v !== undefined && v !== '' && !['0', 'false', 'f', 'no'].includes(v.toLowerCase());

export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const pick = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  };
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  const format = pick('COFFER_FORMAT', 'VAULT_FORMAT');
  return cliConfigSchema.parse({
    address: pick('COFFER_ADDR', 'VAULT_ADDR') ?? 'http://127.0.0.1:8200',
    token: pick('COFFER_TOKEN', 'VAULT_TOKEN'),
    namespace: pick('COFFER_NAMESPACE', 'VAULT_NAMESPACE'),
    format: format === undefined ? undefined : format.toLowerCase(),
    caCert: pick('COFFER_CACERT', 'VAULT_CACERT'),
    tlsSkipVerify: truthy(pick('COFFER_SKIP_VERIFY', 'VAULT_SKIP_VERIFY')),
    wrapTtl: pick('COFFER_WRAP_TTL', 'VAULT_WRAP_TTL'),
    home: pick('HOME', 'USERPROFILE') ?? homedir(),
    // https://no-color.org: any non-empty value turns colours off
    noColor: pick('NO_COLOR') !== undefined,
    childEnv,
  });
}
