/** `condition`: evaluates `config.expr` with the safe expression language; edges `true` / `false`. */
import { ExprError, evalExpr, parseExpr } from '../expr.js';
import type { NodeType } from '../types.js';

export const conditionNode: NodeType = {
  type: 'condition',
  instant: true,
  description:
    'Evaluates config.expr (e.g. `state.total >= 3 && trigger.branch == "main"`; paths start with trigger, state, nodes, item or index; operators || && == != < <= > >= in + - * / % !; ' +
    'functions len, contains, startsWith, endsWith, lower, upper, trim, exists, number, string, matches) and follows the edges with when "true" or "false". An edge without when follows "true". Output: the boolean.',
  config: { type: 'object', properties: { expr: { type: 'string', minLength: 1 } }, required: ['expr'], additionalProperties: false },
  example: { id: 'enough', type: 'condition', config: { expr: 'state.total >= 3' } },
  branches: ['true', 'false'],
  defaultBranch: 'true',
  check(config) {
    try {
      parseExpr(String(config.expr));
      return [];
    } catch (err) {
      return [`config.expr: ${(err as Error).message}`];
    }
  },
  async run(config, ctx) {
    let value: unknown;
    try {
      value = evalExpr(String(config.expr), ctx.scope());
    } catch (err) {
      if (err instanceof ExprError) throw new Error(`config.expr: ${err.message}`);
      throw err;
    }
    const ok = !!value;
    return { output: ok, branch: ok ? 'true' : 'false' };
  },
};
