import { describe, expect, test } from 'bun:test';
import {
  buildShellEnvironment,
  containsUrlCredentials,
  FORCED_SHELL_ENVIRONMENT,
  getEnvironmentExclusion,
  matchesNamePattern,
} from '../../../src/tools/shell/shell-environment.ts';

describe('which variables a command does not see', () => {
  const cases: [string, string, ReturnType<typeof getEnvironmentExclusion>][] = [
    ['PATH', '/usr/bin', undefined],
    ['HOME', '/home/mango', undefined],
    ['PWD', '/srv', undefined],
    ['GIT_AUTHOR_NAME', 'Mango', undefined],
    ['DATABASE_URL', 'postgres://localhost:5432/app', undefined],
    ['HOMEPAGE', 'https://example.com/path@2x.png', undefined],
    ['OPENAI_API_KEY', 'sk-1', 'credential_name'],
    ['AWS_ACCESS_KEY_ID', 'AKIA', 'credential_name'],
    ['AWS_SESSION_TOKEN', 'x', 'credential_name'],
    ['GITHUB_TOKEN', 'ghp_x', 'credential_name'],
    ['client_secret', 'x', 'credential_name'],
    ['PGPASSWORD', 'x', 'credential_name'],
    ['MYSQL_PASSWD', 'x', 'credential_name'],
    ['GPG_PASSPHRASE', 'x', 'credential_name'],
    ['GOOGLE_APPLICATION_CREDENTIALS', '/etc/key.json', 'credential_name'],
    ['SSH_PRIVATE_KEY_PATH', '/k', 'credential_name'],
    ['SSH_AUTH_SOCK', '/tmp/agent', 'credential_name'],
    ['GH_PAT', 'x', 'credential_name'],
    ['SESSION_COOKIE', 'x', 'credential_name'],
    ['DATABASE_URL', 'postgres://app:hunter2@db:5432/app', 'credential_url'],
    ['REPO', 'https://ghp_abc@github.com/o/r.git', 'credential_url'],
    ['MIRRORS', 'https://a.example, https://u:p@b.example', 'credential_url'],
  ];
  test.each(cases)('%s=%s → %p', (name, value, expected) => {
    expect(getEnvironmentExclusion(name, value)).toBe(expected);
  });

  test('allowedEnvVars lets a named credential through; deniedEnvVars wins over it', () => {
    expect(
      getEnvironmentExclusion('SSH_AUTH_SOCK', '/a', { allowedEnvVars: ['SSH_AUTH_SOCK'] }),
    ).toBeUndefined();
    expect(
      getEnvironmentExclusion('SSH_AUTH_SOCK', '/a', {
        allowedEnvVars: ['SSH_AUTH_SOCK'],
        deniedEnvVars: ['SSH_*'],
      }),
    ).toBe('denied');
    expect(getEnvironmentExclusion('AWS_REGION', 'eu-west-1', { deniedEnvVars: ['AWS_*'] })).toBe('denied');
  });
});

describe('name patterns', () => {
  const cases: [string, string, boolean][] = [
    ['AWS_REGION', 'AWS_REGION', true],
    ['AWS_REGION', 'aws_region', false],
    ['AWS_REGION', 'AWS_*', true],
    ['AWS_REGION', '*_REGION', true],
    ['AWS_REGION', 'A*S*N', true],
    ['AWS_REGION', '*', true],
    ['A', 'A*A', false],
    ['AWS_REGION', 'GCP_*', false],
  ];
  test.each(cases)('%s against %s → %p', (name, pattern, expected) => {
    expect(matchesNamePattern(name, pattern)).toBe(expected);
  });
});

describe('containsUrlCredentials', () => {
  test('is linear on a hostile value', () => {
    const hostile = `${'a://'.repeat(50_000)}${'b'.repeat(100_000)}`;
    const startedAt = performance.now();
    expect(containsUrlCredentials(hostile)).toBe(false);
    expect(performance.now() - startedAt).toBeLessThan(1000);
  });
});

describe('buildShellEnvironment', () => {
  test('filters the source and always sets the non-interactive variables', () => {
    const environment = buildShellEnvironment(
      { deniedEnvVars: ['INTERNAL_*'] },
      {
        PATH: '/bin',
        API_TOKEN: 't',
        INTERNAL_HOST: 'h',
        PAGER: 'less',
        GIT_PAGER: 'less',
        UNSET: undefined,
      },
    );
    expect(environment).toEqual({ PATH: '/bin', ...FORCED_SHELL_ENVIRONMENT });
    expect(FORCED_SHELL_ENVIRONMENT).toEqual({ PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
  });
});
