import { describe, expect, test } from 'bun:test';
import {
  ALLOWED_SHELL_VARIABLES,
  buildShellEnvironment,
  FORCED_SHELL_ENVIRONMENT,
  isPassedVariable,
  matchesNamePattern,
} from '../../../src/tools/shell/shell-environment.ts';

const identity = { home: '/home/sandbox', user: 'sandbox', shell: '/usr/bin/bash' };

describe('matchesNamePattern', () => {
  const cases: [string, string, boolean][] = [
    ['AWS_REGION', 'AWS_REGION', true],
    ['AWS_REGION', 'AWS_*', true],
    ['AWS_REGION', '*_REGION', true],
    ['AWS_REGION', 'A*_*N', true],
    ['AWS_REGION', '*', true],
    ['A', 'A*A', false],
    ['AWS_REGION', 'GCP_*', false],
  ];
  test.each(cases)('%s against %s → %p', (name, pattern, expected) => {
    expect(matchesNamePattern(name, pattern)).toBe(expected);
  });
});

describe('isPassedVariable', () => {
  test('the allowlist, every LC_* and the operator names pass; nothing else does', () => {
    expect(ALLOWED_SHELL_VARIABLES.every((name) => isPassedVariable(name))).toBe(true);
    expect(isPassedVariable('LC_ALL')).toBe(true);
    expect(isPassedVariable('LC_MESSAGES')).toBe(true);
    for (const name of [
      'DB_PASS',
      'MYSQL_PWD',
      'SLACK_WEBHOOK_URL',
      'DATABASE_URL',
      'HOME',
      'USER',
      'LD_PRELOAD',
    ]) {
      expect(isPassedVariable(name)).toBe(false);
    }
    expect(isPassedVariable('HTTP_PROXY', ['HTTP_PROXY'])).toBe(true);
    expect(isPassedVariable('HTTP_PROXY_2', ['HTTP_PROXY'])).toBe(false);
  });
});

describe('buildShellEnvironment', () => {
  test('only the allowlist, the identity and the non-interactive variables', () => {
    const environment = buildShellEnvironment(
      identity,
      { passEnv: ['CI'], deniedEnvVars: ['LC_*'] },
      {
        PATH: '/usr/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TERM: 'xterm',
        CI: '1',
        HOME: '/root',
        USER: 'root',
        API_TOKEN: 't',
        DB_PASS: 'p',
        PAGER: 'less',
        UNSET: undefined,
      },
    );
    expect(environment).toEqual({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      CI: '1',
      HOME: '/home/sandbox',
      USER: 'sandbox',
      LOGNAME: 'sandbox',
      SHELL: '/usr/bin/bash',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
    expect(FORCED_SHELL_ENVIRONMENT).toEqual({ PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
  });

  test('deniedEnvVars cannot remove the identity or the forced variables', () => {
    const environment = buildShellEnvironment(identity, { deniedEnvVars: ['*'] }, { PATH: '/usr/bin' });
    expect(environment).toEqual({
      HOME: '/home/sandbox',
      USER: 'sandbox',
      LOGNAME: 'sandbox',
      SHELL: '/usr/bin/bash',
      ...FORCED_SHELL_ENVIRONMENT,
    });
  });
});
