/**
 * Entry point of the web app: sign-in by pasted token, a header with navigation and sign-out, and a
 * history-API router (`/tools`, `/chats`, `/chats/:id`; `/` and a fresh sign-in open Chats, where a
 * first message can be typed at once). The server's static route falls back to
 * `index.html` for these paths, so reloads and shared links work; any other page-like path it answers
 * with `index.html` at status 404, and the app shows its not-found view.
 */
import { ApiError, createApiClient } from './api-client.ts';
import { renderChatPage } from './chat-page.ts';
import { h, replaceChildren } from './dom.ts';
import { applyTheme, createThemeSwitch, storedTheme } from './theme-switch.ts';
import { clearToken, readToken, saveToken } from './token-store.ts';
import { renderToolsPage } from './tools-page.ts';

const root = document.getElementById('app')!;

function navigate(path: string): void {
  if (window.location.pathname !== path) window.history.pushState({}, '', path);
  void route();
}

function signOut(): void {
  clearToken();
  navigate('/');
}

/** The paths the app has a page for; anything else gets the not-found view. */
function isKnownPath(path: string): boolean {
  return /^\/(?:tools|chats(?:\/[^/]+)?)?\/?$/.test(path);
}

async function route(): Promise<void> {
  if (!isKnownPath(window.location.pathname)) {
    renderNotFound();
    return;
  }
  const token = readToken();
  if (!token) {
    renderSignIn();
    return;
  }
  const api = createApiClient(token, () => {
    clearToken();
    renderSignIn('Your token was not accepted. Sign in again.');
  });
  const path = window.location.pathname;
  const chatMatch = /^\/chats\/([^/]+)\/?$/.exec(path);
  const section = path.startsWith('/tools') ? 'tools' : 'chats';
  if (path === '/' || path === '') window.history.replaceState({}, '', '/chats');

  const main = h('main', { id: 'main', class: section === 'chats' ? 'page page-wide page-fill' : 'page' });
  replaceChildren(root, renderHeader(section), main);
  document.title = section === 'chats' ? 'Chats — Mango' : 'Tools — Mango';
  const loadImage = async (url: string) => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new ApiError(response.status, response.statusText);
    return URL.createObjectURL(await response.blob());
  };
  if (section === 'chats') {
    await renderChatPage(main, {
      api,
      chatId: chatMatch ? decodeURIComponent(chatMatch[1]!) : undefined,
      navigate,
      loadImage,
    });
  } else {
    await renderToolsPage(main, api);
  }
}

function renderHeader(section: 'tools' | 'chats'): HTMLElement {
  const link = (path: string, label: string, active: boolean) =>
    h(
      'a',
      { href: path, class: 'nav-link', 'data-link': true, 'aria-current': active ? 'page' : undefined },
      label,
    );
  return h(
    'header',
    { class: 'app-header' },
    h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'),
    h('span', { class: 'brand' }, 'Mango'),
    h(
      'nav',
      { 'aria-label': 'Main' },
      h(
        'ul',
        {},
        h('li', {}, link('/tools', 'Tools', section === 'tools')),
        h('li', {}, link('/chats', 'Chats', section === 'chats')),
      ),
    ),
    createThemeSwitch(),
    h('button', { type: 'button', class: 'button-quiet sign-out', onclick: signOut }, 'Sign out'),
  );
}

/** An unknown address (the server answered it with status 404): say so and offer the way back. */
function renderNotFound(): void {
  document.title = 'Not found — Mango';
  const heading = h('h1', { tabindex: -1 }, 'Page not found');
  replaceChildren(
    root,
    h(
      'main',
      { id: 'main', class: 'page page-narrow not-found' },
      heading,
      h('p', {}, 'There is no page at ', h('code', {}, window.location.pathname), '.'),
      h(
        'p',
        {},
        h('a', { href: '/chats', 'data-link': true }, 'Go to your chats'),
        ' or ',
        h('a', { href: '/tools', 'data-link': true }, 'your tools'),
        '.',
      ),
    ),
  );
  heading.focus();
}

function renderSignIn(notice?: string): void {
  document.title = 'Sign in — Mango';
  const error = h(
    'p',
    { class: 'field-error', id: 'token-error', role: 'alert', hidden: !notice },
    notice ?? '',
  );
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    spellcheck: 'false',
    'aria-describedby': 'token-hint token-error',
  });
  const button = h('button', { type: 'submit', class: 'button-primary' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'sign-in-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (token === '') {
          error.textContent = 'Paste your API token.';
          error.hidden = false;
          input.focus();
          return;
        }
        button.disabled = true;
        error.hidden = true;
        try {
          await createApiClient(token, () => {}).listTools();
          saveToken(token);
          navigate(window.location.pathname === '/' ? '/chats' : window.location.pathname);
        } catch (failure) {
          error.textContent =
            failure instanceof ApiError && failure.status === 401
              ? 'That token was not accepted.'
              : `Could not sign in: ${(failure as Error).message}`;
          error.hidden = false;
          button.disabled = false;
          input.focus();
        }
      },
    },
    h('h1', {}, 'Sign in to Mango'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'token' }, 'API token'),
      input,
      h(
        'p',
        { class: 'field-hint', id: 'token-hint' },
        'Create one on the server with ',
        h('code', {}, 'mango user add NAME'),
        '. It is kept in this browser until you sign out.',
      ),
    ),
    error,
    h('div', { class: 'form-actions' }, button),
  );
  replaceChildren(root, h('main', { id: 'main', class: 'page page-narrow' }, form));
  input.focus();
}

document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  const summary = target?.closest('summary');
  if (summary?.parentElement instanceof HTMLDetailsElement)
    summary.parentElement.dataset.userToggled = 'true';
  const link = target?.closest<HTMLAnchorElement>('a[data-link]');
  if (!link || event.defaultPrevented) return;
  const mouse = event as MouseEvent;
  if (mouse.button !== 0 || mouse.metaKey || mouse.ctrlKey || mouse.shiftKey || mouse.altKey) return;
  event.preventDefault();
  navigate(link.pathname);
});
window.addEventListener('popstate', () => void route());
applyTheme(storedTheme());
void route();
