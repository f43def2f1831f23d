import { GatewayError } from '../errors/gateway-error';
import { parseGoBool, type ParsedQuery } from './request-query';

/**
 * What the HTTP request asks for, before routing: POST and PUT are both "write" (create or
 * update is decided later, by the ACL and the route's existence check); LIST arrives as
 * GET ?list=true (see http/list-rewrite); `?help=1` on any method asks for help.
 */
export type RequestKind = 'read' | 'list' | 'write' | 'patch' | 'delete' | 'help';

export function classifyRequest(method: string, query: ParsedQuery): RequestKind {
  if (query.help !== undefined && query.help !== '') return 'help';
  switch (method) {
    case 'GET':
    case 'HEAD':
      return query.list !== undefined && query.list !== '' && parseGoBool(query.list) ? 'list' : 'read';
    case 'POST':
    case 'PUT':
      return 'write';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      throw new GatewayError('method_not_allowed');
  }
}
