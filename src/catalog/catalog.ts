import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { AppError, type ErrorDetail } from '../errors.js';
import type { Availability } from '../engines/types.js';
import { defaultsOf, inputSchema } from './schema.js';
import type { ModeDef, ModelDef } from './types.js';
import { routedAvailability } from './routes.js';

export interface ResolvedMode {
  model: ModelDef;
  mode: ModeDef;
  /** The mode's id as the API shows it: the subModelId of a multi-mode model, else null. */
  subModelId: string | null;
}

interface CompiledMode {
  full: ValidateFunction;
  partial: ValidateFunction;
}

const NODE_TYPE = /^[a-z][a-z0-9_]{1,63}$/;
// Hosted sub-model ids include single-mode ids equal to a snake_case nodeType (`document_ocr`).
const SUB_MODEL_ID = /^[a-z0-9][a-z0-9._-]{1,79}$/;

export function isMultiMode(model: ModelDef): boolean {
  return model.modes.length > 1;
}

/** The mode a call that names none runs: the model's `defaultSubModelId`, else its first mode. */
export function defaultMode(model: ModelDef): ModeDef {
  return (model.defaultSubModelId && model.modes.find((m) => m.subModelId === model.defaultSubModelId)) || model.modes[0]!;
}

function details(prefix: string, errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).map((e) => {
    const segs = e.instancePath.split('/').filter(Boolean);
    if (e.keyword === 'required') segs.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') {
      segs.push(String(e.params.additionalProperty));
      return { path: [prefix, ...segs].join('.'), message: 'is not an input of this model' };
    }
    let message = e.keyword === 'required' ? 'is required' : e.message ?? 'is invalid';
    if (e.keyword === 'enum') {
      const allowed = (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v));
      // Long lists (voices, languages) are named in the model schema; the message shows the start of it.
      message = allowed.length <= 12 ? `must be one of ${allowed.join(', ')}` : `must be one of the ${allowed.length} values listed in the model schema (${allowed.slice(0, 8).join(', ')}, …)`;
    }
    return { path: [prefix, ...segs].join('.'), message };
  });
}

/**
 * The model catalog as loaded in this process: every model, indexed by nodeType and by subModelId, with
 * each mode's input validators compiled once, when first used. Availability comes from the engines this process has.
 */
export class Catalog {
  readonly models: readonly ModelDef[];
  private readonly byNodeType = new Map<string, ModelDef>();
  private readonly bySubModel = new Map<string, ResolvedMode>();
  /** Hosted parent ids (`flux-2-max`) that differ from the nodeType. */
  private readonly byParent = new Map<string, ModelDef>();
  private readonly compiled = new Map<ModeDef, CompiledMode>();
  private readonly ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false });

  constructor(models: ModelDef[], private readonly engineAvailability: (engineId: string, options?: Record<string, unknown>) => Availability) {
    this.models = models;
    for (const model of models) {
      if (!NODE_TYPE.test(model.nodeType)) throw new Error(`catalog: bad nodeType "${model.nodeType}"`);
      if (this.byNodeType.has(model.nodeType)) throw new Error(`catalog: duplicate nodeType ${model.nodeType}`);
      if (model.modes.length === 0) throw new Error(`catalog: ${model.nodeType} has no modes`);
      this.byNodeType.set(model.nodeType, model);
      if (model.parentModelId && model.parentModelId !== model.nodeType) this.byParent.set(model.parentModelId, model);
      for (const mode of model.modes) {
        if (!SUB_MODEL_ID.test(mode.subModelId)) throw new Error(`catalog: bad subModelId "${mode.subModelId}" of ${model.nodeType}`);
        if (this.bySubModel.has(mode.subModelId) || (this.byNodeType.has(mode.subModelId) && mode.subModelId !== model.nodeType)) {
          throw new Error(`catalog: duplicate subModelId ${mode.subModelId}`);
        }
        this.bySubModel.set(mode.subModelId, { model, mode, subModelId: isMultiMode(model) ? mode.subModelId : null });
      }
    }
  }

  /**
   * A mode's validators, compiled on first use: with the hosted catalog there are some 200 modes, and
   * compiling all of them took seconds at every process start (CLI commands included) for modes most
   * processes never validate.
   */
  private validators(mode: ModeDef): CompiledMode {
    let c = this.compiled.get(mode);
    if (!c) {
      c = {
        full: this.ajv.compile(inputSchema(mode)),
        partial: this.ajv.compile(inputSchema(mode, { requireRequired: false })),
      };
      this.compiled.set(mode, c);
    }
    return c;
  }

  model(nodeType: string): ModelDef | undefined {
    return this.byNodeType.get(nodeType);
  }

  /**
   * `{modelId}` of the schema and pricing paths: a subModelId, or a nodeType or hosted parentModelId (a
   * multi-mode one → its default mode).
   */
  resolveModelId(modelId: string): ResolvedMode {
    const bySub = this.bySubModel.get(modelId);
    if (bySub) return bySub;
    const model = this.byNodeType.get(modelId) ?? this.byParent.get(modelId);
    if (model) { const mode = defaultMode(model); return { model, mode, subModelId: isMultiMode(model) ? mode.subModelId : null }; }
    throw new AppError('MODEL_NOT_FOUND', `No model or sub-model "${modelId}"; list them with GET /v1/models`);
  }

  /**
   * A nodeType plus optional subModelId, as runs, estimates and workflow nodes name a model. Without a
   * subModelId the model's default mode is used (hosted-compat: every model has a `defaultSubModelId`).
   * `requireSubModel` is accepted for older callers and no longer refuses anything.
   */
  resolveNode(nodeType: string, subModelId: string | undefined | null, opts: { requireSubModel?: boolean; path?: string } = {}): ResolvedMode {
    const where = opts.path ? `${opts.path}.` : '';
    const model = this.byNodeType.get(nodeType);
    if (!model) {
      throw new AppError('MODEL_NOT_FOUND', `Unknown model "${nodeType}"; list them with GET /v1/models`, {
        details: [{ path: `${where}${opts.path ? 'type' : 'nodeType'}`, message: `unknown model "${nodeType}"` }],
      });
    }
    if (subModelId === undefined || subModelId === null) {
      const mode = defaultMode(model);
      return { model, mode, subModelId: isMultiMode(model) ? mode.subModelId : null };
    }
    const mode = model.modes.find((m) => m.subModelId === subModelId);
    if (!mode) {
      throw new AppError('VALIDATION_ERROR', `${model.nodeType} has no sub-model "${subModelId}"; it has ${model.modes.map((m) => m.subModelId).join(', ')}`, {
        details: [{ path: `${where}subModelId`, message: 'is not a sub-model of this model' }],
      });
    }
    return { model, mode, subModelId: isMultiMode(model) ? mode.subModelId : null };
  }

  /**
   * Like resolveNode, for a call that may also name the mode inside its input (`input.subModelId`, as some
   * hosted clients send it): returns the mode and the input without that key, which is no model field.
   * Naming two different modes is refused.
   */
  resolveCall(nodeType: string, subModelId: string | undefined | null, input: unknown, opts: { inputPath: string; path?: string }): { resolved: ResolvedMode; input: unknown } {
    const inner = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>).subModelId : undefined;
    if (inner === undefined) return { resolved: this.resolveNode(nodeType, subModelId, opts), input };
    const model = this.byNodeType.get(nodeType);
    // A model with a real input of that name keeps it as an input.
    if (model && model.modes.some((m) => m.fields.some((f) => f.name === 'subModelId'))) return { resolved: this.resolveNode(nodeType, subModelId, opts), input };
    const where = `${opts.inputPath}.subModelId`;
    if (typeof inner !== 'string') {
      throw new AppError('VALIDATION_ERROR', `${where} must be a string`, { details: [{ path: where, message: 'must be a string' }] });
    }
    if (subModelId !== undefined && subModelId !== null && subModelId !== inner) {
      throw new AppError('VALIDATION_ERROR', `subModelId "${subModelId}" and ${where} "${inner}" name different modes`, { details: [{ path: where, message: 'differs from subModelId' }] });
    }
    const { subModelId: _named, ...rest } = input as Record<string, unknown>;
    return { resolved: this.resolveNode(nodeType, inner, opts), input: rest };
  }

  /**
   * Validates an input against the mode's schema and returns a copy with defaults filled in. `partial`
   * skips required fields (estimates of workflow nodes whose inputs arrive along edges).
   */
  validateInput(mode: ModeDef, input: unknown, opts: { path: string; partial?: boolean }): Record<string, unknown> {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new AppError('VALIDATION_ERROR', `${opts.path} must be an object`, { details: [{ path: opts.path, message: 'must be an object' }] });
    }
    const copy = structuredClone(input) as Record<string, unknown>;
    const c = this.validators(mode);
    const validate = opts.partial ? c.partial : c.full;
    if (!validate(copy)) {
      const d = details(opts.path, validate.errors);
      // A field over its documented size (text length, list length) has its own code (docs/api.md "Conventions").
      const tooLarge = validate.errors?.[0] && ['maxLength', 'maxItems'].includes(validate.errors[0].keyword);
      throw new AppError(tooLarge ? 'INPUT_TOO_LARGE' : 'VALIDATION_ERROR', `${d[0]!.path} ${d[0]!.message}`, { details: d });
    }
    return copy;
  }

  /**
   * Estimates' reading of an input (hosted-compat: "invalid input does not error; it returns the base
   * estimate"): every field that is unknown or invalid is dropped (its default applies) and named in
   * `ignored`; what remains is valid for the mode, with required fields allowed to be missing.
   */
  validateLenient(mode: ModeDef, input: unknown, opts: { path: string }): { input: Record<string, unknown>; ignored: ErrorDetail[] } {
    const ignored: ErrorDetail[] = [];
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      ignored.push({ path: opts.path, message: 'must be an object; priced at the defaults' });
      input = {};
    }
    const kept = { ...(input as Record<string, unknown>) };
    const validate = this.validators(mode).partial;
    // Each pass drops the field the first error names; a mode has few fields, so this ends quickly.
    for (let pass = 0; pass <= Object.keys(kept).length + 1; pass++) {
      const copy = structuredClone(kept);
      if (validate(copy)) return { input: copy, ignored };
      const error = validate.errors?.[0];
      const d = details(opts.path, validate.errors)[0];
      const field = error ? (error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : error.instancePath.split('/').filter(Boolean)[0]) : undefined;
      if (field === undefined || !(field in kept)) break;
      ignored.push({ path: `${opts.path}.${field}`, message: `${d?.message ?? 'is invalid'}; ignored` });
      delete kept[field];
    }
    // Nothing left to drop and still invalid (a schema rule over several fields): price the defaults.
    for (const name of Object.keys(kept)) ignored.push({ path: `${opts.path}.${name}`, message: 'ignored' });
    return { input: this.defaults(mode), ignored };
  }

  defaults(mode: ModeDef): Record<string, unknown> {
    return defaultsOf(mode);
  }

  /** A mode's availability: its engine's, narrowed by the binding (a remote server that does not serve the bound model). */
  availability(model: ModelDef, mode: ModeDef = defaultMode(model)): Availability {
    // A routed mode (catalog/routes.ts) is available while any of its routes is.
    if (mode.routes?.length) return routedAvailability(mode, (r) => this.engineAvailability(r.engine.engine, r.engine.options));
    return this.engineAvailability(mode.engine.engine, mode.engine.options);
  }

  /** A model is available when any of its modes is; the reason, when none is, is the default mode's. */
  modelAvailability(model: ModelDef): Availability {
    const each = model.modes.map((mode) => this.availability(model, mode));
    return each.find((a) => a.available) ?? each[0]!;
  }
}
