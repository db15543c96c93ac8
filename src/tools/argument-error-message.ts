/**
 * Turns the first rule a tool call's arguments break (an Ajv error) into the message the model reads:
 * the argument's name (`items[2].path` for nested values), what was expected — type, bound, allowed
 * values or pattern — and the value received, as a model can act on it.
 */
import type { ErrorObject } from 'ajv';
import type { JsonSchema } from '../contracts/json-schema.ts';

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean (true or false, not a string)',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

/** A short, exact description of a received value. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Longest property description quoted in a wrong-type message; longer ones would bury the error. */
const MAX_MEANING_LENGTH = 120;

function pathSegments(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function argumentName(segments: string[]): string {
  return segments.reduce(
    (name, segment, index) =>
      index === 0 ? segment : /^\d+$/.test(segment) ? `${name}[${segment}]` : `${name}.${segment}`,
    '',
  );
}

function valueAt(data: unknown, segments: string[]): unknown {
  let current = data;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function typeWords(type: unknown): string {
  const types = String(type).split(',');
  return types.map((item) => TYPE_WORDS[item] ?? item).join(' or ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export function describeArgumentError(
  toolName: string,
  schema: JsonSchema,
  data: Record<string, unknown>,
  error: ErrorObject,
): string {
  const segments = pathSegments(error.instancePath);
  const value = valueAt(data, segments);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    if (segments.length === 0) {
      const declared = Object.keys(schema.properties ?? {});
      return `Tool "${toolName}" has no argument "${key}". Its arguments are: ${declared.join(', ') || 'none'}.`;
    }
    return `Argument "${argumentName(segments)}" has no key "${key}".`;
  }
  if (error.keyword === 'required') {
    const missing = argumentName([...segments, String(params.missingProperty)]);
    const propertySchema = (error.parentSchema as JsonSchema | undefined)?.properties?.[
      String(params.missingProperty)
    ];
    const expected = propertySchema?.type ? ` (${typeWords(propertySchema.type)})` : '';
    return `Argument "${missing}" is required${expected}.`;
  }
  const name = segments.length === 0 ? 'arguments' : argumentName(segments);
  const got = describeValue(value);
  switch (error.keyword) {
    case 'type': {
      // The property's own description says what the value means ("a string (a file path)").
      const description = (error.parentSchema as JsonSchema | undefined)?.description;
      const meaning =
        description && description.length <= MAX_MEANING_LENGTH ? ` (${description.replace(/\.$/, '')})` : '';
      return `Argument "${name}" must be ${typeWords(params.type)}${meaning}, got ${got}.`;
    }
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const words: Record<string, string> = {
        '>=': 'at least',
        '>': 'greater than',
        '<=': 'at most',
        '<': 'less than',
      };
      return `Argument "${name}" must be ${words[String(params.comparison)]} ${String(params.limit)}, got ${String(value)}.`;
    }
    case 'minLength':
    case 'maxLength': {
      const bound = error.keyword === 'minLength' ? 'at least' : 'at most';
      const length = typeof value === 'string' ? [...value].length : 0;
      return `Argument "${name}" must be ${bound} ${plural(Number(params.limit), 'character')} long, got ${length}.`;
    }
    case 'minItems':
    case 'maxItems': {
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      const count = Array.isArray(value) ? value.length : 0;
      return `Argument "${name}" must have ${bound} ${plural(Number(params.limit), 'item')}, got ${count}.`;
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((item) => JSON.stringify(item)).join(', ');
      return `Argument "${name}" must be one of ${allowed}, got ${typeof value === 'string' ? JSON.stringify(value) : got}.`;
    }
    case 'const':
      return `Argument "${name}" must be ${JSON.stringify(params.allowedValue)}, got ${got}.`;
    case 'pattern':
      return `Argument "${name}" must match the pattern ${JSON.stringify(params.pattern)}, got ${got}.`;
    default:
      return `Argument "${name}" ${error.message ?? 'does not match its schema'}, got ${got}.`;
  }
}
