/**
 * The limits of what a chat stores, and the checks of a model name, a system prompt, a title and a
 * message against them; each refusal is a `ChatError` `invalid_request` saying what was expected and
 * what came.
 */
import { titleProblem } from './chat-title.ts';
import { invalid, requireStorable } from './storable-text.ts';

export const MAX_MODEL_LENGTH = 200;
export const MAX_SYSTEM_PROMPT_LENGTH = 50_000;
export const MAX_MESSAGE_LENGTH = 1_000_000;

/** @returns the model name trimmed. @throws ChatError `invalid_request` for a name no chat can have. */
export function checkModel(model: string): string {
  const trimmed = model.trim();
  if (trimmed === '' || trimmed.length > MAX_MODEL_LENGTH) {
    throw invalid(`model must be 1–${MAX_MODEL_LENGTH} characters, got ${trimmed.length}.`);
  }
  requireStorable('model', trimmed);
  return trimmed;
}

/**
 * @returns the system prompt trimmed, or null when blank (the chat then has no prompt of its own).
 * @throws ChatError `invalid_request` for a prompt over `MAX_SYSTEM_PROMPT_LENGTH` or not storable.
 */
export function checkSystemPrompt(systemPrompt: string | null | undefined): string | null {
  const trimmed = systemPrompt?.trim() ?? '';
  if (trimmed === '') return null;
  if (trimmed.length > MAX_SYSTEM_PROMPT_LENGTH) {
    throw invalid(
      `systemPrompt must be at most ${MAX_SYSTEM_PROMPT_LENGTH} characters after trimming, got ${trimmed.length}.`,
    );
  }
  requireStorable('systemPrompt', trimmed);
  return trimmed;
}

/** @returns the title trimmed. @throws ChatError `invalid_request` for a title no chat can have. */
export function checkTitle(title: string): string {
  const trimmed = title.trim();
  requireStorable('title', trimmed);
  const problem = titleProblem(trimmed);
  if (problem !== undefined) throw invalid(problem);
  return trimmed;
}

/** @throws ChatError `invalid_request` for a message no turn can start with. */
export function checkMessage(message: string): void {
  if (message.trim() === '') throw invalid('message must not be empty.');
  if (message.length > MAX_MESSAGE_LENGTH) {
    throw invalid(`message must be at most ${MAX_MESSAGE_LENGTH} characters, got ${message.length}.`);
  }
}
