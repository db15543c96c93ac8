/**
 * The system prompt of a chat turn (spec: "Built-in Tools": the agent system prompt announces the
 * chat's working directory). Pure: the same chat always gets the same prompt, so a provider's prompt
 * cache keeps working across turns.
 */

export interface SystemPromptInput {
  /** The chat's bound working directory (absolute, real path); absent = none bound. */
  workingDirectory?: string;
  /** Whether path containment applies to the bound directory. */
  restricted?: boolean;
  /** Where relative paths resolve when no directory is bound: the API process's working directory. */
  processWorkingDirectory: string;
  /** The chat's own instructions, appended after the server's. */
  chatSystemPrompt?: string;
}

const BASE_PROMPT =
  'You are a helpful assistant. You can call tools; the server runs them and sends you their results. ' +
  'A tool that fails returns {"error": {"classification", "message"}}: read the message, correct the call ' +
  'and try again, or explain the problem to the user.';

function describeWorkingDirectory(input: SystemPromptInput): string {
  if (input.workingDirectory === undefined) {
    return (
      'No working directory is bound to this chat. Relative paths in tool arguments resolve against the ' +
      `server's working directory, ${input.processWorkingDirectory}; prefer absolute paths.`
    );
  }
  const lines = [
    `Working directory: ${input.workingDirectory}`,
    'Relative paths in tool arguments (path, cwd) resolve against it, and the paths tools report are ' +
      'relative to it, so a path from one tool can be passed straight to another.',
  ];
  if (input.restricted) {
    lines.push(
      'This chat is restricted to the working directory: tools refuse any path outside it, symbolic links ' +
        'included. Do not try to reach other locations.',
    );
  }
  return lines.join('\n');
}

/** Builds the system prompt: the server's instructions, the working directory, the chat's own prompt. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const parts = [BASE_PROMPT, describeWorkingDirectory(input)];
  const chatPrompt = input.chatSystemPrompt?.trim();
  if (chatPrompt) parts.push(chatPrompt);
  return parts.join('\n\n');
}

/**
 * Appended to the system prompt of the last iteration a turn allows, when tools are withheld
 * (issue 7: "the model is told to answer").
 */
export function buildFinalIterationNotice(maxIterations: number): string {
  return (
    `This is the last step of this turn (limit: ${maxIterations} model calls). No tools are available ` +
    'now: answer the user with what you have learned so far, and say what is left to do.'
  );
}

/** Joins a system prompt and an addition, either of which may be absent. */
export function appendToSystemPrompt(systemPrompt: string | undefined, addition: string): string {
  return systemPrompt ? `${systemPrompt}\n\n${addition}` : addition;
}
