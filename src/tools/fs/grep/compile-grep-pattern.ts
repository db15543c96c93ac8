/**
 * Validates a grep pattern and picks its engine: an invalid regex is refused with a
 * `validation_failed` naming it, and so is a pattern over 1000 characters, which bounds compile time.
 */
import { RE2JS } from 're2js';
import { errorMessage } from '../../../errors/error-message.ts';
import { ToolArgumentError } from '../../errors.ts';
import { analyzePattern } from './analyze-pattern.ts';
import type { GrepMatcherSpec } from './text-searcher.ts';

export const GREP_PATTERN_MAX_LENGTH = 1000;

/** An invalid or oversized grep pattern; classified `validation_failed`. */
export class GrepPatternError extends ToolArgumentError {
  constructor(message: string) {
    super(message);
    this.name = 'GrepPatternError';
  }
}

export function compileGrepPattern(pattern: string, caseInsensitive: boolean): GrepMatcherSpec {
  if (pattern.length === 0) throw new GrepPatternError('Argument "pattern" must not be empty.');
  if (pattern.length > GREP_PATTERN_MAX_LENGTH) {
    throw new GrepPatternError(
      `Argument "pattern" is ${pattern.length} characters long; grep accepts at most ${GREP_PATTERN_MAX_LENGTH}.`,
    );
  }
  try {
    new RegExp(pattern, caseInsensitive ? 'i' : '');
  } catch (error) {
    const reason = errorMessage(error);
    throw new GrepPatternError(
      `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Escape special characters such as ( [ { . * + ? with a backslash to search for them literally.`,
    );
  }
  const analysis = analyzePattern(pattern);
  if (analysis.pureLiteral) {
    return {
      pattern,
      caseInsensitive,
      engine: 'literal',
      re2Source: analysis.re2Source,
      prefilterLiterals: analysis.requiredLiterals,
    };
  }
  if (analysis.re2Source !== null) {
    try {
      RE2JS.compile(analysis.re2Source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
      return {
        pattern,
        caseInsensitive,
        engine: 're2',
        re2Source: analysis.re2Source,
        prefilterLiterals: analysis.requiredLiterals,
        anchoredSuffix: analysis.anchoredSuffix,
      };
    } catch {
      // RE2 cannot express it (e.g. a repeat count over 1000): JavaScript's engine, off the main thread.
    }
  }
  return {
    pattern,
    caseInsensitive,
    engine: 'javascript',
    re2Source: null,
    prefilterLiterals: analysis.requiredLiterals,
  };
}
