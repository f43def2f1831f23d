import type { Expr, PolicyAst } from './ast';

/** The names a policy reads, so a caller can skip building data (request, token, identity) it never uses. */
export function usedGlobals(ast: PolicyAst): Set<string> {
  const used = new Set<string>();
  const walk = (e: Expr): void => {
    switch (e.kind) {
      case 'ident':
        used.add(e.name);
        return;
      case 'list':
        e.items.forEach(walk);
        return;
      case 'map':
        e.entries.forEach((x) => {
          walk(x.key);
          walk(x.value);
        });
        return;
      case 'selector':
        walk(e.target);
        return;
      case 'index':
        walk(e.target);
        walk(e.index);
        return;
      case 'call':
        walk(e.callee);
        e.args.forEach(walk);
        return;
      case 'unary':
        walk(e.operand);
        return;
      case 'binary':
        walk(e.left);
        walk(e.right);
        return;
      case 'else':
        walk(e.value);
        walk(e.fallback);
        return;
      case 'quantifier':
        walk(e.collection);
        walk(e.body);
        return;
      case 'rule':
        if (e.when) walk(e.when);
        walk(e.body);
        return;
      case 'literal':
      case 'undefined':
        return;
    }
  };
  ast.assignments.forEach((a) => walk(a.value));
  return used;
}
