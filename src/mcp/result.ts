import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors.js';

/**
 * Runs a tool body and answers its JSON as one text content block (serialize lets a tool use the REST
 * route's own response serializer, so the bytes match). Service errors become MCP tool errors
 * (isError: true) carrying the spec's code, message and field details, so the model sees what to fix and
 * the transport never sees a throw. Anything that is not an AppError is reported as INTERNAL without
 * internals (and passed to onInternal for logging).
 */
export async function toolCall(fn: () => Promise<unknown>, serialize: (value: any) => string = JSON.stringify, onInternal?: (err: unknown) => void): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: serialize(await fn()) }] };
  } catch (err) {
    if (!(err instanceof AppError)) onInternal?.(err);
    const e = err instanceof AppError ? err : new AppError('INTERNAL', 'Internal error');
    const body: Record<string, unknown> = { error: e.message, code: e.code, ...(e.extra ?? {}) };
    if (e.details) body.details = e.details;
    return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}\n${JSON.stringify(body)}` }] };
  }
}
