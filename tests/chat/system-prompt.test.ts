import { describe, expect, test } from 'bun:test';
import { buildSystemPrompt } from '../../src/chat/system-prompt.ts';

describe('buildSystemPrompt', () => {
  test('announces the working directory and its restriction', () => {
    const prompt = buildSystemPrompt({
      workingDirectory: '/home/ana/project',
      restricted: true,
      processWorkingDirectory: '/srv',
      chatSystemPrompt: '  Answer in Portuguese. ',
    });
    expect(prompt).toContain('\n\nWorking directory: /home/ana/project\n');
    expect(prompt).toContain('Relative paths in tool arguments (path, cwd) resolve against it');
    expect(prompt).toContain('This chat is restricted to the working directory');
    expect(prompt).toEndWith('\n\nAnswer in Portuguese.');
  });

  test('an unrestricted chat is not told about containment', () => {
    const prompt = buildSystemPrompt({
      workingDirectory: '/p',
      restricted: false,
      processWorkingDirectory: '/srv',
    });
    expect(prompt).toContain('Working directory: /p');
    expect(prompt).not.toContain('restricted');
  });

  test('without a bound directory it names the server directory paths fall back to', () => {
    const prompt = buildSystemPrompt({ processWorkingDirectory: '/srv/mango' });
    expect(prompt).toContain(
      "No working directory is bound to this chat. Relative paths in tool arguments resolve against the server's working directory, /srv/mango; prefer absolute paths.",
    );
  });

  test('is deterministic', () => {
    const input = { workingDirectory: '/p', restricted: true, processWorkingDirectory: '/srv' };
    expect(buildSystemPrompt(input)).toBe(buildSystemPrompt(input));
  });
});
