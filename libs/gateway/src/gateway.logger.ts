/** What the gateway logs through (Nest's Logger fits). Messages never carry tokens or bodies. */
export interface GatewayLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string, stack?: string): void;
}
