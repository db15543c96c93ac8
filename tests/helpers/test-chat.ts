/** Test helper: a chat row for repositories, with only what a test cares about given. */
import type { NewChat } from '../../src/chat/chat-repository.ts';

export function testChat(id: string, createdAt: string, overrides: Partial<NewChat> = {}): NewChat {
  return {
    id,
    userId: 'u1',
    title: 't',
    workingDirectory: null,
    confined: true,
    provider: 'openai',
    model: 'm',
    systemPrompt: null,
    createdAt,
    ...overrides,
  };
}
