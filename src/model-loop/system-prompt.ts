/**
 * The system prompt of a chat turn: it announces the chat's working directory, against which the tools
 * resolve relative paths and to which their results are relative. Pure: the same chat always gets the
 * same prompt, so a provider's prompt cache keeps working across turns.
 */
import type { ReachableSet } from '../tools/access/reachable-set.ts';

export interface SystemPromptInput {
  /** What the chat's tools may reach (working directory, `~`, roots). */
  reachable: Pick<ReachableSet, 'workingDirectory' | 'homeDirectory' | 'roots'>;
  /** Whether the chat is confined to its working directory. */
  confined: boolean;
  /** The chat's own instructions, appended after the server's. */
  chatSystemPrompt?: string;
}

const BASE_PROMPT =
  'You are a helpful assistant. You can call tools; the server runs them and sends you their results. ' +
  'A tool that fails returns {"error": {"classification", "message"}}: read the message, correct the call ' +
  'and try again, or explain the problem to the user.';

function describeWorkingDirectory(input: SystemPromptInput): string {
  const { reachable } = input;
  const lines = [
    `Working directory: ${reachable.workingDirectory}`,
    'Relative paths in tool arguments (path, cwd) resolve against it, and the paths tools report are ' +
      'relative to it, so a path from one tool can be passed straight to another. ' +
      `~ means the user's personal workspace, ${reachable.homeDirectory}.`,
  ];
  if (input.confined) {
    lines.push(
      'This chat is confined to the working directory: tools refuse any path outside it, symbolic links ' +
        'included. Do not try to reach other locations.',
    );
  } else {
    const roots = reachable.roots.map((root) => `${root.path} (${root.access})`).join(', ');
    lines.push(`Tools reach only these directories: ${roots}. Any other path is refused.`);
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
 * so the model answers with what it has instead of being cut off mid-call.
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
