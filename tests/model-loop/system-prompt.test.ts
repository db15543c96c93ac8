import { describe, expect, test } from 'bun:test';
import { buildSystemPrompt } from '../../src/model-loop/system-prompt.ts';

const reachable = {
  workingDirectory: '/w/ana/project',
  homeDirectory: '/w/ana',
  roots: [
    { path: '/w/ana', access: 'read-write' as const },
    { path: '/srv/shared', access: 'read-only' as const },
  ],
};

describe('buildSystemPrompt', () => {
  test('announces the working directory, ~ and the confinement', () => {
    const prompt = buildSystemPrompt({
      reachable,
      confined: true,
      chatSystemPrompt: '  Answer in Portuguese. ',
    });
    expect(prompt).toContain('\n\nWorking directory: /w/ana/project\n');
    expect(prompt).toContain('Relative paths in tool arguments (path, cwd) resolve against it');
    expect(prompt).toContain("~ means the user's personal workspace, /w/ana.");
    expect(prompt).toContain('This chat is confined to the working directory');
    expect(prompt).toEndWith('\n\nAnswer in Portuguese.');
  });

  test('an unrestricted chat is told which directories its tools reach', () => {
    const prompt = buildSystemPrompt({ reachable, confined: false });
    expect(prompt).toContain('Working directory: /w/ana/project');
    expect(prompt).toContain(
      'Tools reach only these directories: /w/ana (read-write), /srv/shared (read-only). Any other path is refused.',
    );
    expect(prompt).not.toContain('confined');
  });

  test('is deterministic', () => {
    const input = { reachable, confined: true };
    expect(buildSystemPrompt(input)).toBe(buildSystemPrompt(input));
  });
});
