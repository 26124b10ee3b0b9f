import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, placeFields, type FieldPlace } from '../errors.js';

/** What a tool answers: the text a model reads and the same facts as structuredContent for programs. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
  /** A tool that did part of its work (a batch with refused items) may still report an error. */
  isError?: boolean;
}

/**
 * Where the REST route a tool mirrors takes each field a service's FieldError names: a list's cursor and
 * status filter as query parameters, everything else in the body (so a tool names fields as the API does).
 */
export function toolPlaces(field: string): FieldPlace {
  return field === 'cursor' || field === 'status' ? 'query' : 'body';
}

/**
 * Service errors become MCP tool errors (isError: true) carrying the spec's code, message and field
 * details, so the model sees what to fix and the transport never sees a throw. Anything that is not an
 * AppError is reported as INTERNAL without internals (and passed to onInternal for logging).
 */
export function errorResult(err: unknown, onInternal?: (err: unknown) => void): CallToolResult {
  if (!(err instanceof AppError)) onInternal?.(err);
  const placed = placeFields(err, toolPlaces);
  const e = placed instanceof AppError ? placed : new AppError('INTERNAL', 'Internal error');
  const body: Record<string, unknown> = { error: e.message, code: e.code, ...(e.extra ?? {}) };
  if (e.details) body.details = e.details;
  return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}\n${JSON.stringify(body)}` }], structuredContent: body };
}

/**
 * Runs a tool body and answers its JSON as one text content block (serialize lets a tool use the REST
 * route's own response serializer, so the bytes match), with the same value as structuredContent (a list
 * is wrapped as { items }, since structured content is an object).
 */
export async function toolCall(fn: () => Promise<unknown>, serialize: (value: any) => string = JSON.stringify, onInternal?: (err: unknown) => void): Promise<CallToolResult> {
  try {
    const value = await fn();
    const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { items: value };
    return { content: [{ type: 'text', text: serialize(value) }], structuredContent: structured };
  } catch (err) {
    return errorResult(err, onInternal);
  }
}

/** Runs a tool body that shapes its own text and structured content. */
export async function answerCall(fn: () => Promise<ToolAnswer>, onInternal?: (err: unknown) => void): Promise<CallToolResult> {
  try {
    const a = await fn();
    return { content: [{ type: 'text', text: a.text }], structuredContent: a.structured, ...(a.isError ? { isError: true } : {}) };
  } catch (err) {
    return errorResult(err, onInternal);
  }
}
