import { describe, expect, test } from 'bun:test';
import {
  type CommandRuleMatch,
  isCommandPrefixOf,
  matchCommandRule,
  parseSimpleCommand,
} from '../../../src/tools/shell/command-approval-rules.ts';

const RULES = { prefixes: ['git status', 'npm test'], exact: [] };
const NO_MATCH = 'no rule matches';

// label, command, the reason in both shells (commands here mean the same to bash and zsh)
const MUST_NOT_MATCH: [string, string, string][] = [
  ['semicolon', 'git status; rm -rf ~', 'operator ";"'],
  ['semicolon without a blank', 'git status;ls', 'operator ";"'],
  ['and list', 'git status && rm -rf /', 'operator "&&"'],
  ['or list', 'git status || rm x', 'operator "||"'],
  ['pipe', 'git status | sh', 'operator "|"'],
  ['pipe with stderr', 'git status |& cat', 'operator "|&"'],
  ['background then a command', 'git status & rm x', 'operator "&"'],
  ['trailing background', 'git status &', 'operator "&"'],
  ['case terminator', 'git status;; x', 'operator ";;"'],
  ['zsh disown operator', 'git status &| x', 'operator "&|"'],
  ['newline', 'git status\nrm -rf ~', 'newline'],
  ['trailing newline', 'git status\n', 'newline'],
  ['closing parenthesis', 'git status )', 'operator ")"'],
  ['output redirection', 'git status > /etc/passwd', 'redirection ">"'],
  ['output redirection glued to a word', 'git status>out', 'redirection ">"'],
  ['append redirection', 'git status >> out', 'redirection ">>"'],
  ['input redirection', 'git status < in', 'redirection "<"'],
  ['stderr to stdout', 'git status 2>&1', 'redirection "2>&1"'],
  ['closing a descriptor', 'git status 2>&-', 'redirection "2>&-"'],
  ['both streams to a file', 'git status &> out', 'redirection "&>"'],
  ['both streams appended', 'git status &>> out', 'redirection "&>>"'],
  ['clobber', 'git status >| out', 'redirection ">|"'],
  ['zsh clobber', 'git status >! out', 'redirection ">!"'],
  ['read and write', 'git status <> f', 'redirection "<>"'],
  ['here-document', 'git status <<EOF', 'here-document'],
  ['here-document with tab stripping', 'git status <<-EOF', 'here-document'],
  ['here-string', 'git status <<< x', 'here-string "<<<"'],
  ['input process substitution', 'git status <(rm x)', 'process substitution'],
  ['output process substitution', 'git status >(rm x)', 'process substitution'],
  ['variable', 'git status $VAR', 'expansion "$VAR"'],
  ['braced variable', 'git status $' + '{VAR}', 'expansion "$' + '{VAR}"'],
  ['variable with a default', 'git status $' + '{VAR:-x}', 'expansion "$' + '{VAR:-x}"'],
  ['positional parameter', 'git status $1', 'expansion "$1"'],
  ['all parameters', 'git status $@', 'expansion "$@"'],
  ['a lone dollar', 'git status $', 'expansion "$"'],
  ['command substitution', 'git status $(rm -rf ~)', 'command substitution'],
  ['backticks', 'git status `rm -rf ~`', 'command substitution'],
  ['arithmetic expansion', 'git status $((1+1))', 'arithmetic expansion'],
  ['old arithmetic expansion', 'git status $[1+1]', 'arithmetic expansion'],
  ['expansion glued to a quoted word', 'git "status"$x', 'expansion "$x"'],
  ['expansion inside double quotes', 'git "status $x"', 'expansion "$x"'],
  ['command substitution inside double quotes', 'git "status $(id)"', 'command substitution'],
  ['backticks inside double quotes', 'git "status `id`"', 'command substitution'],
  ['ANSI-C quoting', "git status $'\\x41'", 'ANSI-C quoting "$\'…\'"'],
  ['locale translation', 'git status $"x"', 'locale translation "$\\"…\\""'],
  ['star', 'git status *', 'glob "*"'],
  ['question mark', 'git status ?', 'glob "?"'],
  ['bracket expression', 'git status [a]', 'glob "["'],
  ['closing bracket', 'git status a]', 'glob "]"'],
  ['recursive glob', 'git status **/x', 'glob "*"'],
  ['brace list', 'git status {a,b}', 'brace expansion "{…}"'],
  ['brace sequence', 'git status {1..3}', 'brace expansion "{…}"'],
  ['closing brace', 'git status }', 'brace "}"'],
  ['tilde', 'git status ~', 'tilde expansion'],
  ['tilde with a user', 'git status ~root', 'tilde expansion'],
  ['tilde after an equals sign', 'git status --dir=~/x', 'tilde expansion'],
  ['tilde after a colon', 'git status a:~', 'tilde expansion'],
  ['tilde after empty quotes', "git status ''~", 'tilde expansion'],
  ['subshell', '(git status)', 'subshell'],
  ['subshell with blanks', '( git status )', 'subshell'],
  ['group', '{ git status; }', 'group "{ …; }"'],
  ['arithmetic command', '((x = 1))', 'arithmetic command "(( … ))"'],
  ['function definition', 'git() { rm -rf ~; }', 'function definition'],
  ['leading assignment', 'FOO=1 git status', 'leading assignment "FOO=1"'],
  ['leading assignment of a path', 'GIT_DIR=/tmp/x git status', 'leading assignment "GIT_DIR=/tmp/x"'],
  ['leading append assignment', 'A+=1 git status', 'leading assignment "A+=1"'],
  ['assignment alone', 'FOO=1', 'leading assignment "FOO=1"'],
  ['quoted name before an equals sign', "'FOO'=1 git status", '"=" in the command name "FOO=1"'],
  ['escaped equals sign', 'FOO\\=1 git status', '"=" in the command name "FOO=1"'],
  ['non-ASCII name before an equals sign', 'é=1 git status', '"=" in the command name "é=1"'],
  ['empty name before +=', '+=1 git status', '"=" in the command name "+=1"'],
  ['job specification', '%1', 'job specification "%1"'],
  ['escaped job specification', '\\%git status', 'job specification "%git"'],
  ['a longer word', 'git status-foo', NO_MATCH],
  ['one word', 'gitstatus', NO_MATCH],
  ['a shorter word', 'git statu', NO_MATCH],
  ['fewer words than the rule', 'git', NO_MATCH],
  ['a quoted blank inside the word', "git 'status '", NO_MATCH],
  ['an escaped blank joins the words', 'git status\\ -s', NO_MATCH],
  ['the rule as one quoted word', "'git status'", NO_MATCH],
  ['the rule as one double-quoted word', '"git status"', NO_MATCH],
  ['the rule joined by an escaped blank', 'git\\ status', NO_MATCH],
  ['command runs another program', 'command git status', NO_MATCH],
  ['env runs another program', 'env git status', NO_MATCH],
  ['exec runs another program', 'exec git status', NO_MATCH],
  ['npm tests is another script', 'npm tests', NO_MATCH],
  ['trailing backslash', 'git status \\', 'trailing backslash'],
  ['escaped newline', 'git sta\\\ntus', 'escaped newline'],
  ['escaped newline inside double quotes', 'git "sta\\\ntus"', 'escaped newline'],
  ['comment', 'git status #c', 'comment'],
  ['comment only', '# git status', 'comment'],
  ['negation', '! git status', 'reserved word "!"'],
  ['bang in an argument', 'git status !x', 'history expansion "!"'],
  ['if', 'if git status; then rm x; fi', 'reserved word "if"'],
  ['time', 'time git status', 'reserved word "time"'],
  ['while', 'while git status; do :; done', 'reserved word "while"'],
  ['coproc', 'coproc git status', 'reserved word "coproc"'],
  ['double brackets', '[[ -e x ]]', 'glob "["'],
  ['NUL', 'git status\u0000', 'NUL character'],
  ['NUL inside quotes', "git status 'a\u0000'", 'NUL character'],
  ['carriage return', 'git status\r', 'control character U+000D'],
  ['escape sequence', 'git status \u001b[2J', 'control character U+001B'],
  ['escaped control character', 'git status \\\u0007', 'control character U+0007'],
  ['C1 control character', 'git status "\u009b2J"', 'control character U+009B'],
  ['delete', "git status '\u007f'", 'control character U+007F'],
  ['unterminated single quote', "git status 'x", 'unterminated quote'],
  ['unterminated double quote', 'git status "x', 'unterminated quote'],
  ['unterminated double quote after a backslash', 'git status "x\\', 'unterminated quote'],
  ['empty', '', 'empty command'],
  ['blanks only', '  \t ', 'empty command'],
  ['compound behind the rule', 'npm test; curl x | sh', 'operator ";"'],
];

// label, command, reason in zsh, the words bash reads (every one literal there)
const ZSH_ONLY: [string, string, string, string[]][] = [
  ['equals expansion', 'git =status', 'equals expansion "=status"', ['git', '=status']],
  ['equals expansion of the command word', '=git status', 'equals expansion "=git"', []],
  ['glob qualifier', 'git status(N)', 'glob qualifier "(…)"', []],
  ['glob group', 'git status (a|b)', 'glob group "(…)"', []],
  ['negated glob', 'git status ^foo', 'glob operator "^"', ['git', 'status', '^foo']],
  ['glob repetition', 'git status x#', 'glob operator "#"', ['git', 'status', 'x#']],
  ['glob exclusion', 'git status HEAD~1', 'glob operator "~"', ['git', 'status', 'HEAD~1']],
  [
    'equals expansion after an equals sign',
    'git status --x==ls',
    'equals expansion "=ls"',
    ['git', 'status', '--x==ls'],
  ],
  [
    'equals expansion after a colon',
    'git status a=b:=ls',
    'equals expansion "=ls"',
    ['git', 'status', 'a=b:=ls'],
  ],
  [
    'equals expansion after empty quotes',
    'git status ""=ls',
    'equals expansion "=ls"',
    ['git', 'status', '=ls'],
  ],
  ['zsh process substitution', 'git status =(ls)', 'process substitution', []],
  ['RC_QUOTES single quotes', "git status 'a''b'", 'adjacent single quotes "\'\'"', ['git', 'status', 'ab']],
  ['typeset is a reserved word', 'typeset x', 'reserved word "typeset"', ['typeset', 'x']],
  ['foreach is a reserved word', 'foreach x', 'reserved word "foreach"', ['foreach', 'x']],
];

describe('commands that must not match "git status" or "npm test"', () => {
  test('the table covers enough cases', () => {
    expect(MUST_NOT_MATCH.length + ZSH_ONLY.length).toBeGreaterThanOrEqual(60);
  });
  for (const shell of ['bash', 'zsh'] as const) {
    test.each(MUST_NOT_MATCH)(`${shell}: %s`, (_label, command, reason) => {
      expect(matchCommandRule(command, shell, RULES)).toEqual({ matched: false, reason });
    });
  }
  test.each(ZSH_ONLY)('zsh only: %s', (_label, command, reason, bashWords) => {
    expect(matchCommandRule(command, 'zsh', RULES)).toEqual({ matched: false, reason });
    const bash = parseSimpleCommand(command, 'bash');
    if (bashWords.length === 0) expect(bash.ok).toBe(false);
    else expect(bash).toEqual({ ok: true, words: bashWords });
  });
  test('bash reads "git status(N)" as a syntax error, not a command', () => {
    expect(parseSimpleCommand('git status(N)', 'bash')).toEqual({ ok: false, reason: 'operator "("' });
  });
});

// label, command, rule it matches, words
const MUST_MATCH: [string, string, string, string[]][] = [
  ['the rule itself', 'git status', 'git status', ['git', 'status']],
  ['with an option', 'git status -s', 'git status', ['git', 'status', '-s']],
  ['two blanks', 'git  status', 'git status', ['git', 'status']],
  ['tabs around', '\tgit\tstatus\t', 'git status', ['git', 'status']],
  ['blanks around', '  git status  ', 'git status', ['git', 'status']],
  ['single-quoted program', "'git' status", 'git status', ['git', 'status']],
  ['double-quoted words', '"git" "status"', 'git status', ['git', 'status']],
  ['quotes inside words', 'g\'i\'t st"at"us', 'git status', ['git', 'status']],
  ['an escaped ordinary character', 'g\\it status', 'git status', ['git', 'status']],
  ['a quoted blank in an argument', "git status -- 'a b'", 'git status', ['git', 'status', '--', 'a b']],
  ['escaped quote inside double quotes', 'git status "a\\"b"', 'git status', ['git', 'status', 'a"b']],
  ['escaped dollar inside double quotes', 'git status "\\$HOME"', 'git status', ['git', 'status', '$HOME']],
  ['escaped backslash inside double quotes', 'git status "a\\\\b"', 'git status', ['git', 'status', 'a\\b']],
  [
    'other backslashes stay inside double quotes',
    'git status "a\\q"',
    'git status',
    ['git', 'status', 'a\\q'],
  ],
  ['dollar inside single quotes', "git status '$HOME'", 'git status', ['git', 'status', '$HOME']],
  ['star inside single quotes', "git status '*'", 'git status', ['git', 'status', '*']],
  ['escaped star', 'git status \\*', 'git status', ['git', 'status', '*']],
  ['escaped semicolon', 'git status \\;', 'git status', ['git', 'status', ';']],
  ['escaped tilde', 'git status \\~', 'git status', ['git', 'status', '~']],
  ['quoted tilde', 'git status "~"', 'git status', ['git', 'status', '~']],
  ['escaped hash', 'git status \\#x', 'git status', ['git', 'status', '#x']],
  ['quoted bang', "git status '!'", 'git status', ['git', 'status', '!']],
  ['empty argument', "git status ''", 'git status', ['git', 'status', '']],
  ['newline inside quotes', 'git status "a\nb"', 'git status', ['git', 'status', 'a\nb']],
  ['an argument with an equals sign', 'git status a=b', 'git status', ['git', 'status', 'a=b']],
  [
    'punctuation',
    'git status %1 @x +y ,z . - :',
    'git status',
    ['git', 'status', '%1', '@x', '+y', ',z', '.', '-', ':'],
  ],
  ['non-ASCII', 'git status é ツ 🔧', 'git status', ['git', 'status', 'é', 'ツ', '🔧']],
  ['no-break space is part of a word', 'git status\u00a0', NO_MATCH, ['git', 'status\u00a0']],
  [
    'npm test with arguments',
    'npm test -- --watch=false',
    'npm test',
    ['npm', 'test', '--', '--watch=false'],
  ],
];

describe('commands that match', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    test.each(MUST_MATCH)(`${shell}: %s`, (_label, command, rule, words) => {
      expect(parseSimpleCommand(command, shell)).toEqual({ ok: true, words });
      const expected: CommandRuleMatch =
        rule === NO_MATCH ? { matched: false, reason: NO_MATCH } : { matched: true, rule, kind: 'prefix' };
      expect(matchCommandRule(command, shell, RULES)).toEqual(expected);
    });
  }
  test.each([
    ['HEAD~1 inside a word', 'git status HEAD~1', ['git', 'status', 'HEAD~1']],
    ['hash inside a word', 'git status a#b', ['git', 'status', 'a#b']],
    ['caret', 'git status ^x', ['git', 'status', '^x']],
    ['a word starting with an equals sign', 'git status =x', ['git', 'status', '=x']],
    ['adjacent single quotes', "git status 'a''b'", ['git', 'status', 'ab']],
    ['a quoted reserved word is a program name', "'if' x", ['if', 'x']],
  ])('bash: %s', (_label, command, words) => {
    expect(parseSimpleCommand(command, 'bash')).toEqual({ ok: true, words });
  });
});

describe('rules', () => {
  test('the first prefix rule that matches is reported, with its text as given', () => {
    const rules = { prefixes: ['npm', '  git   status ', 'git'], exact: [] };
    expect(matchCommandRule('git status -s', 'bash', rules)).toEqual({
      matched: true,
      rule: '  git   status ',
      kind: 'prefix',
    });
    expect(matchCommandRule('git push --force', 'bash', rules)).toEqual({
      matched: true,
      rule: 'git',
      kind: 'prefix',
    });
  });
  test('a quoted rule means its words', () => {
    const rules = { prefixes: ['\'git\' "status"'], exact: [] };
    expect(matchCommandRule('git status', 'zsh', rules)).toEqual({
      matched: true,
      rule: rules.prefixes[0],
      kind: 'prefix',
    });
  });
  test.each([
    ['an operator', 'git status;'],
    ['an expansion', '$GIT status'],
    ['a glob', 'git *'],
    ['an empty rule', ''],
    ['a blank rule', '   '],
    ['an assignment', 'FOO=1'],
    ['a reserved word', 'time'],
    ['an unterminated quote', "git 'status"],
  ])('a prefix rule with %s never matches', (_label, rule) => {
    for (const command of ['git status', 'git status;', 'FOO=1', 'time', '']) {
      expect(matchCommandRule(command, 'bash', { prefixes: [rule], exact: [] }).matched).toBe(false);
    }
  });
  test('an exact rule matches a compound command only verbatim, trimmed of blanks', () => {
    const rules = { prefixes: ['cd'], exact: ['cd web && npm test'] };
    const matched: CommandRuleMatch = { matched: true, rule: 'cd web && npm test', kind: 'exact' };
    expect(matchCommandRule('cd web && npm test', 'bash', rules)).toEqual(matched);
    expect(matchCommandRule(' \tcd web && npm test\n', 'bash', rules)).toEqual(matched);
    expect(matchCommandRule('cd web &&  npm test', 'bash', rules)).toEqual({
      matched: false,
      reason: 'operator "&&"',
    });
    expect(matchCommandRule('cd web && npm test; rm x', 'bash', rules)).toEqual({
      matched: false,
      reason: 'operator "&&"',
    });
    expect(matchCommandRule('cd web && npm test\u00a0', 'bash', rules)).toEqual({
      matched: false,
      reason: 'operator "&&"',
    });
    expect(matchCommandRule('cd web', 'bash', rules)).toEqual({ matched: true, rule: 'cd', kind: 'prefix' });
  });
  test('an exact rule is compared as text, not as words', () => {
    const rules = { prefixes: [], exact: ['git status'] };
    expect(matchCommandRule('git status', 'bash', rules)).toEqual({
      matched: true,
      rule: 'git status',
      kind: 'exact',
    });
    expect(matchCommandRule("'git' status", 'bash', rules)).toEqual({ matched: false, reason: NO_MATCH });
    expect(matchCommandRule('git status -s', 'bash', rules)).toEqual({ matched: false, reason: NO_MATCH });
  });
  test('exact rules are checked before prefix rules', () => {
    const rules = { prefixes: ['git status'], exact: ['git status'] };
    expect(matchCommandRule('git status', 'zsh', rules)).toEqual({
      matched: true,
      rule: 'git status',
      kind: 'exact',
    });
  });
  test('an empty exact rule never matches an empty command', () => {
    expect(matchCommandRule('  ', 'bash', { prefixes: [], exact: ['', ' '] })).toEqual({
      matched: false,
      reason: 'empty command',
    });
  });
  test('no rules at all', () => {
    expect(matchCommandRule('git status', 'bash', { prefixes: [], exact: [] })).toEqual({
      matched: false,
      reason: NO_MATCH,
    });
  });
});

describe('isCommandPrefixOf', () => {
  test.each([
    ['git status', 'git status -s', true],
    ['git status', 'git status', true],
    ['"git" status', 'git   status', true],
    ['git', 'git push', true],
    ['git stat', 'git status', false],
    ['git status -s', 'git status', false],
    ['git status', 'git status; rm x', false],
    ['git status;', 'git status', false],
    ['', 'git status', false],
    ['git status', '', false],
  ])('%p of %p: %p (bash)', (prefix, command, expected) => {
    expect(isCommandPrefixOf(prefix, command, 'bash')).toBe(expected);
  });
  test('the dialect decides: "=x" is a word in bash and an expansion in zsh', () => {
    expect(isCommandPrefixOf('git =x', 'git =x y', 'bash')).toBe(true);
    expect(isCommandPrefixOf('git =x', 'git =x y', 'zsh')).toBe(false);
  });
});
