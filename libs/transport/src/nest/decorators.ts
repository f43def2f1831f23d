import { applyDecorators, createParamDecorator, UseFilters, type ExecutionContext } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import type { Broadcast, Contract } from '@coffer/contracts';
import type { Headers } from '../transport-types';
import { callerFromHeaders, requireCaller } from './caller';
import { CofferRpcContext } from './rpc-context';
import { passThroughFilter } from './filter';

/** Keys under which the decorators leave the contract / broadcast in the handler's extras. */
export const CONTRACT_EXTRA = 'contract';
export const BROADCAST_EXTRA = 'broadcast';

/**
 * Serves `contract` with the decorated method: MessagePattern(contract.subject, { contract }).
 * Carries its own pass-through exception filter, so a DomainError thrown by the method, a guard, a
 * pipe or a param decorator reaches the caller unchanged whatever the app registered.
 */
export function Handles(contract: Contract): MethodDecorator {
  return applyDecorators(
    MessagePattern(contract.subject, { [CONTRACT_EXTRA]: contract }),
    UseFilters(passThroughFilter),
  );
}

/** Receives every `broadcast` published (each replica gets it): EventPattern(subject, { broadcast }). */
export function OnBroadcast(broadcast: Broadcast): MethodDecorator {
  return applyDecorators(
    EventPattern(broadcast.subject, { [BROADCAST_EXTRA]: broadcast }),
    UseFilters(passThroughFilter),
  );
}

function headersOf(ctx: ExecutionContext): Headers {
  const rpc = ctx.switchToRpc().getContext<unknown>();
  if (!(rpc instanceof CofferRpcContext)) {
    throw new Error('@Caller/@TransportHeaders need a handler served by CofferTransportStrategy');
  }
  return rpc.getHeaders();
}

/** The CallerContext from the message headers; DomainError('invalid_request') when absent. */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  requireCaller(headersOf(ctx)),
);

/** The CallerContext from the message headers, or undefined (unauthenticated internal calls). */
export const OptionalCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  callerFromHeaders(headersOf(ctx)),
);

/** The raw transport headers of the message (a copy: changing it affects nothing else). */
export const TransportHeaders = createParamDecorator((_data: unknown, ctx: ExecutionContext): Headers => ({
  ...headersOf(ctx),
}));
