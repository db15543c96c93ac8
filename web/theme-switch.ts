/**
 * Light, dark or the system's scheme: a labelled select in the header. The choice is kept in this
 * browser (`localStorage`) and applied as `data-theme` on the root element, where the stylesheet turns
 * it into `color-scheme` (every colour is a light-dark() pair); "System" removes it, so the OS decides.
 */
import { h, uniqueId } from './dom.ts';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
const STORAGE_KEY = 'mango.theme';
const LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

export function storedTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY);
  return THEMES.find((theme) => theme === stored) ?? 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function createThemeSwitch(): HTMLElement {
  const id = uniqueId('theme');
  const select = h(
    'select',
    { id, name: 'theme' },
    THEMES.map((theme) => h('option', { value: theme }, LABELS[theme])),
  );
  select.value = storedTheme();
  select.addEventListener('change', () => {
    const theme = THEMES.find((candidate) => candidate === select.value) ?? 'system';
    if (theme === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, theme);
    applyTheme(theme);
  });
  return h('div', { class: 'theme-switch' }, h('label', { for: id }, 'Theme'), select);
}
