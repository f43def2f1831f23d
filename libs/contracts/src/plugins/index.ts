// External plugins: the gateway's route table of a plugin mount, the storage contract, the stdio protocol.
export * from './plugin.routes';
