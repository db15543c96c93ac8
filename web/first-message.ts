/**
 * The message typed into a new chat before it existed: the new-chat view creates the chat, leaves the
 * message here and opens the chat, whose view sends it as if typed there, so a refused send keeps it in
 * that chat's composer. Held in memory for one page load only; it is taken once.
 */

const held = new Map<string, string>();

export function holdFirstMessage(chatId: string, message: string): void {
  held.set(chatId, message);
}

export function takeFirstMessage(chatId: string): string | undefined {
  const message = held.get(chatId);
  held.delete(chatId);
  return message;
}
