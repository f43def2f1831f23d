// node-vault-client ships no types: the part of its API the e2e spec uses.
declare module 'node-vault-client' {
  interface Lease {
    getData(): Record<string, any>;
    getValue(key: string): any;
    isRenewable(): boolean;
  }
  interface VaultClientOptions {
    api: { url: string; apiVersion?: string };
    auth: {
      type: 'token' | 'appRole' | 'iam' | 'kubernetes';
      mount?: string;
      config: Record<string, unknown>;
    };
    logger?: false | Record<string, (...args: unknown[]) => void>;
  }
  class VaultClient {
    constructor(options: VaultClientOptions);
    static boot(name: string, options?: VaultClientOptions): VaultClient;
    static get(name: string): VaultClient;
    static clear(name?: string): void;
    read(path: string): Promise<Lease>;
    list(path: string): Promise<Lease>;
    write(path: string, data: unknown): Promise<any>;
  }
  export = VaultClient;
}
