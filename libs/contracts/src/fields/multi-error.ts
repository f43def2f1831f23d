/**
 * go-multierror's rendering, which Vault's error bodies carry verbatim (ACL and routing errors,
 * key validation, custom_metadata validation): "1 error occurred:\n\t* ...\n\n".
 */
export function multiError(...errors: string[]): string {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return `${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;
}
