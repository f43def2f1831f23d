import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { invalidRequest, isDomainError } from '@coffer/contracts';
import type { PluginEntry } from './plugin-catalog.decider';

/** Where a catalog entry's command lives: inside the plugin directory, always. */
export function pluginCommandPath(pluginDirectory: string | undefined, command: string): string {
  if (pluginDirectory === undefined)
    throw invalidRequest('no plugin directory is configured (plugin_directory)');
  const dir = path.resolve(pluginDirectory);
  const full = path.resolve(dir, command);
  if (!full.startsWith(`${dir}${path.sep}`))
    throw invalidRequest('command must be inside the plugin directory');
  return full;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Checks the executable against the catalog's SHA-256 before it may run (every start): a missing
 * or changed binary fails with a clear 400 and is never executed.
 */
export async function verifyPluginBinary(
  pluginDirectory: string | undefined,
  entry: PluginEntry,
): Promise<string> {
  const file = pluginCommandPath(pluginDirectory, entry.command);
  let actual: string;
  try {
    // A symlink must not lead out of the plugin directory (Vault resolves it the same way).
    const [dir, real] = await Promise.all([realpath(pluginDirectory ?? ''), realpath(file)]);
    if (!real.startsWith(`${dir}${path.sep}`))
      throw invalidRequest('command must be inside the plugin directory');
    actual = await sha256File(real);
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw invalidRequest(
      `plugin "${entry.name}": the command ${entry.command} cannot be read in the plugin directory`,
    );
  }
  if (actual !== entry.sha256)
    throw invalidRequest(
      `plugin "${entry.name}": the binary's SHA-256 does not match the catalog (checksums did not match)`,
    );
  return file;
}
