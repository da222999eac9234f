// PostgreSQL refuses U+0000 in text, SQLite stores it: either way a NUL in client input would become a 500 on
// one dialect only. This Kysely plugin rejects such values for every query on both dialects, as a client error.
import {
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';
import { AppError } from '../errors/app-error.js';

class NulGuard extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    checkValue(node.value);
    return super.transformValue(node);
  }

  // Inserted rows arrive as lists of plain values rather than value nodes.
  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    checkValue(node.values);
    return super.transformPrimitiveValueList(node);
  }
}

/** Throws the client error a NUL in `value` (a string, or an array of values) earns; used by SqliteWriter too. */
export function checkValue(value: unknown): void {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new AppError('bad_request', 'text values must not contain NUL (U+0000) characters');
  }
  if (Array.isArray(value)) for (const v of value) checkValue(v);
}

export class RejectNulPlugin implements KyselyPlugin {
  private readonly guard = new NulGuard();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.guard.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
