import { DomainError } from '@coffer/contracts';

/**
 * Query strings, read like Go's url.Values: form decoding ("+" is a space), the first value of a
 * repeated key wins. `list` and `help` are the gateway's own parameters and are taken out.
 */
export interface ParsedQuery {
  values: Record<string, string>;
  /** raw value of the first `list` parameter */
  list: string | undefined;
  /** raw value of the first `help` parameter */
  help: string | undefined;
}

const EMPTY: ParsedQuery = Object.freeze({
  values: Object.freeze({}) as Record<string, string>,
  list: undefined,
  help: undefined,
});

export function parseQuery(query: string): ParsedQuery {
  if (query === '') return EMPTY;
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  let list: string | undefined;
  let help: string | undefined;
  for (const [key, value] of new URLSearchParams(query)) {
    if (key === 'list') list ??= value;
    else if (key === 'help') help ??= value;
    else if (!(key in values)) values[key] = value;
  }
  return { values: { ...values }, list, help };
}

/** Go's strconv.ParseBool; anything else is a 400 with an empty error list, like Vault. */
export function parseGoBool(value: string): boolean {
  switch (value) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      throw new DomainError('invalid_request', '');
  }
}
