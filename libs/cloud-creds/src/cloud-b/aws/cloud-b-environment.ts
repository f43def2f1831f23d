import { readProcessEnv, envValue } from '@coffer/config';
import { z } from 'zod';

/**
 * The CLOUDB_* variables of the service's environment, parsed once at boot: the second source of
 * root credentials (after the config/root payload) and of the region.
 */
export const cloudBEnvironmentSchema = z.object({
  accessKey: z.string().optional(),
  secretKey: z.string().optional(),
  sessionToken: z.string().optional(),
  region: z.string().optional(),
  defaultRegion: z.string().optional(),
});
export type CloudBEnvironment = z.infer<typeof cloudBEnvironmentSchema>;

export const CLOUD_B_ENVIRONMENT = Symbol('CLOUD_B_ENVIRONMENT');

export function loadCloudBEnvironment(env = readProcessEnv()): CloudBEnvironment {
  return cloudBEnvironmentSchema.parse({
    accessKey: envValue(env, 'CLOUDB_ACCESS_KEY'),
    secretKey: envValue(env, 'CLOUDB_SECRET_KEY'),
    sessionToken: envValue(env, 'CLOUDB_SESSION_TOKEN'),
    region: envValue(env, 'CLOUDB_REGION'),
    defaultRegion: envValue(env, 'CLOUDB_DEFAULT_REGION'),
  });
}
