/**
 * Whether a shell command is covered by a user's auto-approval rules. A prefix rule covers a command
 * only when both parse (see `shell-words.ts`) as one simple command of literal words and the command's
 * words begin with all of the rule's words, so `git status` covers `git status -s` but neither
 * `git status-foo` nor `git status; rm -rf ~`. An exact rule covers the identical command text, whatever
 * its syntax, because the user approved exactly that text. Pure: no I/O, linear in the input's length.
 */
import { type ShellDialect, scanLiteralWords } from './shell-words.ts';

export type ParsedSimpleCommand = { ok: true; words: string[] } | { ok: false; reason: string };

export type CommandRuleMatch =
  | { matched: true; rule: string; kind: 'prefix' | 'exact' }
  | { matched: false; reason: string };

/** The two rule lists of a shell tool: `autoApprovedCommands` and `autoApprovedExactCommands`. */
export interface CommandRules {
  prefixes: readonly string[];
  exact: readonly string[];
}

/**
 * Blanks the shell itself ignores around a command. JavaScript's `trim` also drops characters such as
 * U+00A0 that the shell keeps inside a word, which would let a different command equal an approved one.
 */
const SURROUNDING_BLANKS = /^[ \t\n]+|[ \t\n]+$/g;

function trimCommand(text: string): string {
  return text.replace(SURROUNDING_BLANKS, '');
}

/** The words of `command` when it is one simple command whose words are all literal; else why not. */
export function parseSimpleCommand(command: string, shell: ShellDialect): ParsedSimpleCommand {
  const scanned = scanLiteralWords(command, shell);
  if (!scanned.ok) return scanned;
  return { ok: true, words: scanned.words.map((word) => word.text) };
}

function startsWithWords(words: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length === 0 || prefix.length > words.length) return false;
  return prefix.every((word, index) => words[index] === word);
}

/** True when `prefix` and `command` both parse and the command's words begin with all of the prefix's. */
export function isCommandPrefixOf(prefix: string, command: string, shell: ShellDialect): boolean {
  const rule = parseSimpleCommand(prefix, shell);
  if (!rule.ok) return false;
  const parsed = parseSimpleCommand(command, shell);
  return parsed.ok && startsWithWords(parsed.words, rule.words);
}

/**
 * The first rule covering `command`: exact rules first (trimmed text equal), then prefix rules in order.
 * A prefix rule that does not itself parse never matches. When none matches, the reason says why: what
 * made the command unparseable, or that no rule covers its words.
 */
export function matchCommandRule(
  command: string,
  shell: ShellDialect,
  rules: CommandRules,
): CommandRuleMatch {
  const trimmed = trimCommand(command);
  if (trimmed !== '') {
    for (const rule of rules.exact) {
      if (trimCommand(rule) === trimmed) return { matched: true, rule, kind: 'exact' };
    }
  }
  const parsed = parseSimpleCommand(command, shell);
  if (!parsed.ok) return { matched: false, reason: parsed.reason };
  for (const rule of rules.prefixes) {
    const ruleWords = parseSimpleCommand(rule, shell);
    if (ruleWords.ok && startsWithWords(parsed.words, ruleWords.words)) {
      return { matched: true, rule, kind: 'prefix' };
    }
  }
  return { matched: false, reason: 'no rule matches' };
}
