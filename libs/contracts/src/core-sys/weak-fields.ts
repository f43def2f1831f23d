import { z } from 'zod';

/**
 * Request fields typed the way Vault decodes them (weakly: "3" and 3 are the same number,
 * "true" and true the same bool, a list may be a comma-separated string). The services do the
 * strict parsing and answer Vault's error texts; these schemas only document and pre-validate.
 */
export const duration = z
  .union([z.string(), z.number()])
  .describe('duration: seconds or a Go duration string ("1h")');
export const boolish = z.union([z.boolean(), z.string()]);
export const intish = z.union([z.number().int(), z.string()]);
export const stringList = z
  .union([z.array(z.string()), z.string()])
  .describe('list, or a comma-separated string');
export const stringMap = z.record(z.string(), z.string());
