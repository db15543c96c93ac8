/**
 * A small client of the chat API for process tests: JSON calls with a bearer token, chat creation,
 * the stored messages, and polling until a condition holds (with a generous deadline, never a fixed
 * sleep standing in for a condition).
 */
export interface ChatApi {
  call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response>;
  json(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  createChat(workingDirectory?: string): Promise<string>;
  /** The stored items of the chat, in order. */
  items(chatId: string): Promise<unknown[]>;
}

export function chatApi(baseUrl: string, token: string): ChatApi {
  const call = (method: string, path: string, body?: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  const json = async (method: string, path: string, body?: unknown) => {
    const response = await call(method, path, body);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    call,
    json,
    createChat: async (workingDirectory) => {
      const created = await json('POST', '/api/chats', {
        provider: 'openai-compatible',
        model: 'm',
        ...(workingDirectory === undefined ? {} : { workingDirectory }),
      });
      if (created.status !== 201)
        throw new Error(`createChat: ${created.status} ${JSON.stringify(created.body)}`);
      return (created.body as { id: string }).id;
    },
    items: async (chatId) => {
      const shown = await json('GET', `/api/chats/${chatId}`);
      return (shown.body as { messages: { item: unknown }[] }).messages.map((message) => message.item);
    },
  };
}
