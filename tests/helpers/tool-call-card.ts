/**
 * Opens a tool call's card on the chat page the way a user does: its group's summary line when the
 * group is folded, then the call's own line when it is closed. A card already open stays open.
 */
import type { Locator } from 'playwright-core';

export async function openToolCall(card: Locator): Promise<void> {
  const group = card.locator(
    'xpath=ancestor::section[contains(concat(" ", @class, " "), " call-group ")][1]',
  );
  if (await group.evaluate((element) => element.classList.contains('call-group-folded')))
    await group.locator('.call-group-toggle').click();
  const row = card.locator('details.call-row');
  if ((await row.getAttribute('open')) === null) await row.locator('summary.call-header').click();
}
