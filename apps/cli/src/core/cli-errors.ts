/** Exit codes as the issue and Vault's CLI define them. */
export const EXIT_OK = 0;
/** local error: unreadable file, token helper, bad input caught before any request */
export const EXIT_LOCAL = 1;
/** server error or usage error */
export const EXIT_REMOTE = 2;

/** Wrong arguments or flags: printed with the command's usage line, exit 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/** Something failed on this machine: exit 1. */
export class CliLocalError extends Error {
  override name = 'CliLocalError';
}

/** The server answered with an error status (or could not be reached): exit 2. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly errors: readonly string[],
    readonly warnings: readonly string[] = [],
  ) {
    super(`Code: ${status}. Errors:\n\n${errors.map((e) => `* ${e.trimEnd()}`).join('\n')}`);
  }
}

/** The server could not be reached at all. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  constructor(
    readonly url: string,
    override readonly cause: Error,
  ) {
    super(`${cause.message}`);
  }
}

/**
 * A hint for the errors people meet most, printed under the server's own text. The texts are
 * the server's (Vault's) error strings, matched loosely so minor wording changes still hit.
 */
export function hintFor(error: ApiError | ConnectionError): string | undefined {
  if (error instanceof ConnectionError)
    return 'Is the server running at this address? Set it with -address or COFFER_ADDR (start one with `coffer server -dev`).';
  const text = error.errors.join('\n').toLowerCase();
  if (error.status === 503 && text.includes('sealed'))
    return 'The server is sealed: unseal it with `coffer operator unseal` (once per key share).';
  if (text.includes('not initialized') || text.includes('uninitialized'))
    return 'The server is not initialised yet: run `coffer operator init`.';
  if (text.includes('invalid token') || text.includes('missing client token') || text.includes('bad token'))
    return 'Your token is invalid or expired: log in again with `coffer login` or set COFFER_TOKEN.';
  if (text.includes('permission denied'))
    return "Your token is not allowed to do this: check `coffer token capabilities <path>` and the token's policies (`coffer token lookup`); a missing token is also denied.";
  if (
    (text.includes('unsupported path') || text.includes('no handler for route')) &&
    error.url.includes('/v1/sys/')
  )
    return 'This server does not offer this sys/ endpoint (see `coffer read sys/internal/specs/openapi` for what it serves).';
  if (text.includes('unsupported path') || text.includes('no handler for route'))
    return 'No secrets engine or auth method is mounted at this path: see `coffer secrets list` and `coffer auth list`.';
  if (text.includes('wrapping token is not valid'))
    return 'A wrapping token can be unwrapped only once, before its TTL runs out.';
  if (text.includes('check-and-set'))
    return 'Another write changed this secret since you read it: read it again and retry with the new -cas value.';
  return undefined;
}
