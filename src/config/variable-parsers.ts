/**
 * The kinds of environment variable Mango reads, each a declaration: its default as the
 * operating manual shows it, a one-line meaning, and a parser that turns the trimmed, non-blank text
 * into a value or throws `ConfigError` naming the variable. Unset and blank both mean the default, so
 * `VAR=` in a unit file never becomes an empty host or port.
 */
import { parseByteSize } from './byte-size.ts';
import { ConfigError, invalidVariable } from './config-error.ts';
import { DISK_QUOTA_EXPECTED, diskQuotaProblem } from './disk-quota-size.ts';

export interface VariableDeclaration<T> {
  /** The default as `docs/operating.md` shows it. */
  readonly defaultText: string;
  readonly meaning: string;
  /** The value when the variable is unset or blank. */
  readonly fallback: T;
  /** Set text blank included is refused: the variable was removed and setting it is a mistake. */
  readonly refusedWhenSet?: boolean;
  /** @throws ConfigError naming the variable (`name`), what it expects and what it got. */
  readonly parse: (name: string, text: string) => T;
}

interface Described {
  defaultText: string;
  meaning: string;
}

/** Free text, trimmed; `fallback` when blank. */
export function textVariable<F extends string | undefined = undefined>(
  described: Described & { fallback?: F },
): VariableDeclaration<string | F> {
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: described.fallback as F,
    parse: (_name, text) => text,
  };
}

/** A whole number from `minimum` to `maximum` (no sign, no fraction, no exponent). */
export function integerVariable<F extends number | undefined>(
  described: Described & { fallback: F; minimum: number; maximum: number; unit?: string; expected?: string },
): VariableDeclaration<number | F> {
  const { minimum, maximum, unit } = described;
  const expected =
    described.expected ?? `an integer from ${minimum} to ${maximum}${unit ? ` (${unit})` : ''}`;
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: described.fallback,
    parse: (name, text) => {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < minimum || value > maximum) {
        throw invalidVariable(name, expected, text);
      }
      return value;
    },
  };
}

/** One of a fixed set of words. */
export function choiceVariable<const T extends string>(
  described: Described & { fallback: T; choices: readonly T[] },
): VariableDeclaration<T> {
  const expected = described.choices.map((choice) => JSON.stringify(choice)).join(' or ');
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: described.fallback,
    parse: (name, text) => {
      const choice = described.choices.find((candidate) => candidate === text);
      if (choice === undefined) throw invalidVariable(name, expected, text);
      return choice;
    },
  };
}

/**
 * A list split on `separator`, empty entries dropped; each entry must match `entry` when given (named
 * by `entryExpected` in the refusal).
 */
export function listVariable(
  described: Described & { separator: RegExp; entry?: RegExp; entryExpected?: string },
): VariableDeclaration<readonly string[]> {
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: [],
    parse: (name, text) => {
      const entries = text
        .split(described.separator)
        .map((item) => item.trim())
        .filter((item) => item !== '');
      for (const item of entries) {
        if (described.entry && !described.entry.test(item)) {
          throw invalidVariable(name, described.entryExpected ?? 'valid', item, { entry: true });
        }
      }
      return entries;
    },
  };
}

/** A value that must match `pattern`; never quoted in the refusal when `secret`. */
export function patternVariable(
  described: Described & { pattern: RegExp; expected: string; secret?: boolean },
): VariableDeclaration<string | undefined> {
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: undefined,
    parse: (name, text) => {
      if (!described.pattern.test(text)) {
        throw invalidVariable(name, described.expected, text, { secret: described.secret });
      }
      return text;
    },
  };
}

/** A secret key: at least 32 characters without spaces; never echoed in a refusal. */
export function secretKeyVariable(described: Described): VariableDeclaration<string | undefined> {
  return patternVariable({
    ...described,
    pattern: /^\S{32,}$/,
    expected: 'at least 32 characters without spaces (e.g. `openssl rand -base64 32`)',
    secret: true,
  });
}

/**
 * A disk quota in bytes (`5368709120`, `5GiB`) that `disk-quota-size.ts` accepts; `0`, like unset,
 * means none (undefined).
 */
export function diskQuotaVariable(described: Described): VariableDeclaration<number | undefined> {
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: undefined,
    parse: (name, text) => {
      const bytes = parseByteSize(text);
      if (bytes === 0) return undefined;
      if (bytes === undefined || diskQuotaProblem(bytes) !== undefined) {
        throw invalidVariable(name, `${DISK_QUOTA_EXPECTED}, or 0 for none`, text);
      }
      return bytes;
    },
  };
}

/** A variable that was removed: any value, blank included, is refused with `message`. */
export function removedVariable(described: Described & { message: string }): VariableDeclaration<undefined> {
  return {
    defaultText: described.defaultText,
    meaning: described.meaning,
    fallback: undefined,
    refusedWhenSet: true,
    parse: (name) => {
      throw new ConfigError(described.message, name);
    },
  };
}
