/**
 * Process output in end-to-end tests: kept in each process's ring buffer for failure messages,
 * and echoed live with a "[name]" prefix when COFFER_E2E_LOGS=1.
 */
export function echoLines(name: string): ((line: string) => void) | undefined {
  if (process.env['COFFER_E2E_LOGS'] !== '1') return undefined;
  return (line: string) => process.stderr.write(`[${name}] ${line}\n`);
}
