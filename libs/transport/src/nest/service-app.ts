import type { DynamicModule, INestMicroservice, LoggerService, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Transport } from '../transport-types';
import { CofferRpcExceptionFilter } from './filter';
import { CofferTransportStrategy } from './strategy';

export interface ServiceAppOptions {
  /** default: errors and warnings only */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Creates and starts a Nest microservice serving `module`'s handlers over `transport` in the
 * `queue` group. The transport stays the caller's: closing the app stops serving, closing the
 * transport is up to whoever created it.
 */
export async function createServiceApp(
  module: Type<unknown> | DynamicModule,
  transport: Transport,
  queue: string,
  options: ServiceAppOptions = {},
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(module, {
    strategy: new CofferTransportStrategy(transport, queue),
    logger: options.logger ?? ['error', 'warn'],
    // Report bootstrap errors to the caller instead of exiting the process.
    abortOnError: false,
  });
  // Handlers declared with a bare @MessagePattern get the same pass-through as @Handles ones.
  app.useGlobalFilters(new CofferRpcExceptionFilter());
  try {
    await app.listen();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}
