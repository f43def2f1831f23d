import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';

/**
 * Nest's default RPC filter turns every error that is not an RpcException into an anonymous
 * "Internal server error" object, which would erase DomainError. This one hands the error to the
 * strategy unchanged; the transport then keeps DomainError and maps anything else to internal.
 */
@Catch()
export class CofferRpcExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => (exception instanceof RpcException ? exception.getError() : exception));
  }
}

export const passThroughFilter = new CofferRpcExceptionFilter();
