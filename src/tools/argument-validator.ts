/**
 * Central argument validation: every tool call's arguments are checked once, against the tool's source
 * JSON Schema, before the tool runs — builtins and tools that bring an arbitrary schema alike.
 *
 * Guarantees:
 * - A schema is compiled once per schema object (cached) and only if it lies within
 *   `MAX_SCHEMA_BYTES` of JSON and `MAX_SCHEMA_DEPTH` levels of nesting; past either, or with a
 *   `pattern` the linear engine cannot run, it is refused with a `ToolSchemaError` that says why — the
 *   call fails closed rather than running unchecked.
 * - Every `pattern` (and `patternProperties` key) runs on RE2, whose matching time is linear in the
 *   input, so no schema can make validation backtrack and freeze the server.
 * - A top-level argument that is `null` counts as absent unless its property schema accepts `null`
 *   (a strict-mode model sends `null` for every optional it leaves out).
 * - A present value of the wrong type, out of bounds, not in the enum, or an undeclared key is a
 *   `ToolArgumentError` (`validation_failed`) naming the argument, the expected type or bound and the
 *   value received.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import type { JsonSchema } from '../contracts/json-schema.ts';
import { errorMessage } from '../errors/error-message.ts';
import { describeArgumentError } from './argument-error-message.ts';
import { ToolArgumentError, ToolExecutionError } from './errors.ts';

/** Largest source schema accepted, as JSON text; bounds compile time and memory. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays accepted in a source schema; bounds compile recursion. */
export const MAX_SCHEMA_DEPTH = 32;

/** A tool's schema cannot be used to validate its calls; classified `execution_error`. */
export class ToolSchemaError extends ToolExecutionError {
  constructor(message: string) {
    super(message);
    this.name = 'ToolSchemaError';
  }
}

function measureDepth(value: unknown, depth: number, toolName: string): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_SCHEMA_DEPTH) {
    throw new ToolSchemaError(
      `The argument schema of tool "${toolName}" nests deeper than ${MAX_SCHEMA_DEPTH} levels; it is refused, so the tool cannot be called.`,
    );
  }
  for (const child of Object.values(value)) measureDepth(child, depth + 1, toolName);
}

/** Refuses a schema past the size or depth cap, with the measured size and the cap. */
export function checkSchemaLimits(schema: JsonSchema, toolName: string): void {
  measureDepth(schema, 1, toolName);
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > MAX_SCHEMA_BYTES) {
    throw new ToolSchemaError(
      `The argument schema of tool "${toolName}" is ${bytes} bytes of JSON; at most ${MAX_SCHEMA_BYTES} are accepted, so the tool cannot be called.`,
    );
  }
}

/** Ajv's pattern hook: compile on RE2, or refuse a pattern RE2 cannot express. */
type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      const reason = errorMessage(error);
      throw new ToolSchemaError(
        `The schema pattern ${JSON.stringify(pattern)} cannot run on the linear-time regular expression engine (${reason}); backreferences and lookaround are not supported.`,
      );
    }
    // Ajv keys compiled patterns by `toString()`, so each must be distinct.
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `re2:${pattern}` };
  },
  { code: 'linearRegExp' },
);

function createAjv(): Ajv {
  // `verbose` puts the failing subschema on each error, which the message quotes. `strict: false`: an external tool's schema may carry keywords and formats Ajv does not know;
  // they are ignored rather than making the tool uncallable.
  return new Ajv({
    allErrors: false,
    verbose: true,
    strict: false,
    logger: false,
    code: { regExp: linearRegExp },
  });
}

function acceptsNull(schema: JsonSchema | boolean | undefined): boolean {
  if (schema === undefined || schema === true) return true;
  if (schema === false) return false;
  // A reference is not followed here: its target decides, so a `null` for it counts as absent.
  if (schema.$ref !== undefined) return false;
  if (schema.allOf && !schema.allOf.every(acceptsNull)) return false;
  if (schema.anyOf) return schema.anyOf.some(acceptsNull);
  if (schema.oneOf) return schema.oneOf.some(acceptsNull);
  if (schema.enum && !schema.enum.includes(null)) return false;
  if ('const' in schema && schema.const !== null) return false;
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes('null') : schema.type === 'null';
}

interface CompiledSchema {
  validate: ValidateFunction;
}

/** Validates tool arguments against source schemas, compiling each schema object once. */
export class ArgumentValidator {
  readonly #ajv = createAjv();
  readonly #compiled = new WeakMap<JsonSchema, CompiledSchema | ToolSchemaError>();

  #compile(schema: JsonSchema, toolName: string): CompiledSchema {
    const cached = this.#compiled.get(schema);
    if (cached instanceof ToolSchemaError) throw cached;
    if (cached) return cached;
    let result: CompiledSchema | ToolSchemaError;
    try {
      checkSchemaLimits(schema, toolName);
      result = { validate: this.#ajv.compile(schema) };
    } catch (error) {
      result =
        error instanceof ToolSchemaError
          ? error
          : new ToolSchemaError(
              `The argument schema of tool "${toolName}" is not a valid JSON Schema (${errorMessage(error)}), so the tool cannot be called.`,
            );
    }
    this.#compiled.set(schema, result);
    if (result instanceof ToolSchemaError) throw result;
    return result;
  }

  /**
   * Returns the arguments with absent-meaning `null`s removed, or throws `ToolArgumentError` for the
   * first rule the arguments break and `ToolSchemaError` for a schema that cannot be used.
   */
  validate(toolName: string, schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
    const { validate } = this.#compile(schema, toolName);
    const properties = schema.properties ?? {};
    const cleaned: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) {
      if (value === null && !(key in properties && acceptsNull(properties[key]))) continue;
      cleaned[key] = value;
    }
    if (validate(cleaned)) return cleaned;
    const error = (validate.errors ?? [])[0] as ErrorObject | undefined;
    throw new ToolArgumentError(
      error
        ? describeArgumentError(toolName, schema, cleaned, error)
        : `The arguments of tool "${toolName}" do not match its schema.`,
    );
  }
}

/** The process-wide validator `executeTool` uses by default. */
export const defaultArgumentValidator = new ArgumentValidator();
