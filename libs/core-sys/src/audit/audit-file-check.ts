import { chmod, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { invalidRequest, type DomainError } from '@coffer/contracts';

/** Go's syscall error texts for the errno codes an open for append can meet. */
const GO_ERRNO_TEXT: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EEXIST: 'file exists',
};

function goPathError(op: string, path: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const text = typeof code === 'string' ? GO_ERRNO_TEXT[code] : undefined;
  return `${op} ${path}: ${text ?? (error instanceof Error ? error.message : String(error))}`;
}

/**
 * Vault's file audit factory opens the file before the device exists (hashicorp/vault#550):
 * MkdirAll of its directory, then open O_APPEND|O_WRONLY|O_CREATE with the device's mode (0600
 * by default), then chmod. A path it cannot open refuses the enable with Vault's text.
 * "stdout" and "discard" are not files.
 */
export async function fileDeviceRefusal(options: Record<string, string>): Promise<DomainError | undefined> {
  const path = options['file_path'] ?? options['path'] ?? '';
  if (path === '' || path === 'stdout' || path === 'discard') return undefined;
  const mode = options['mode'] ? parseInt(options['mode'], 8) : 0o600;
  const refuse = (reason: string) =>
    invalidRequest(`sanity check failed; unable to open ${JSON.stringify(path)} for writing: ${reason}`);
  try {
    await mkdir(dirname(path), { recursive: true, mode });
  } catch (error) {
    // Go's MkdirAll answers ENOTDIR where a non-directory is in the way (Node says EEXIST)
    const code = (error as { code?: unknown }).code;
    const cause = code === 'EEXIST' ? Object.assign(new Error(), { code: 'ENOTDIR' }) : error;
    return refuse(goPathError('mkdir', dirname(path), cause));
  }
  try {
    const handle = await open(path, 'a', mode);
    await handle.close();
  } catch (error) {
    return refuse(goPathError('open', path, error));
  }
  if (mode !== 0 && path !== '/dev/null') {
    try {
      await chmod(path, mode);
    } catch (error) {
      return refuse(goPathError('chmod', path, error));
    }
  }
  return undefined;
}
