/**
 * Keeps keyboard focus where the user left it across an action. A control that is disabled while its
 * request runs loses focus to the document body (the browser's focus fixup), so the next Tab would start
 * from the top of the page; this gives focus back once the action is over, without scrolling.
 */

/**
 * Runs `action`; if `element` had focus before and focus fell to the body meanwhile, focuses it again,
 * or `fallback` when the action left `element` disabled for good (a switch that cannot be switched back).
 */
export async function keepingFocus<T>(
  element: HTMLElement,
  action: () => Promise<T>,
  fallback?: () => HTMLElement,
): Promise<T> {
  const hadFocus = document.activeElement === element;
  try {
    return await action();
  } finally {
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (hadFocus && lost && element.isConnected) {
      const disabled = (element as HTMLButtonElement).disabled === true;
      const target = disabled && fallback ? fallback() : element;
      target.focus({ preventScroll: true });
    }
  }
}
