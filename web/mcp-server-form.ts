/**
 * On the Tools page: the form that adds one of the user's own MCP servers (`POST /api/mcp-servers`:
 * name, Streamable HTTP URL, optional headers one `Name: value` a line) and the button that removes
 * one (`DELETE /api/mcp-servers/:name`). A refusal shows the server's message next to the form. After
 * a change the page inserts or drops that server's group in place (no reload of the page, so the scroll
 * position and every unsaved field elsewhere stay); focus stays on the form. Header values go to the
 * server and are never shown again (the server does not return them).
 */
import type { ApiClient, UserMcpServerView } from './api-client.ts';
import { h } from './dom.ts';
import { keepingFocus } from './keep-focus.ts';

/** `Name: value` lines → headers; a line without a colon is an error naming its number. */
export function parseHeaderLines(text: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return `Line ${index + 1} is not "Name: value".`;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** `onAdded` shows the new server on the page and returns what the form then says. */
export function createAddServerForm(
  api: ApiClient,
  onAdded: (server: UserMcpServerView) => Promise<string>,
): HTMLElement {
  const name = h('input', {
    id: 'mcp-add-name',
    name: 'name',
    type: 'text',
    required: true,
    maxlength: 32,
    autocomplete: 'off',
  });
  const url = h('input', {
    id: 'mcp-add-url',
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://…/mcp',
  });
  const headers = h('textarea', {
    id: 'mcp-add-headers',
    name: 'headers',
    rows: 2,
    placeholder: 'Authorization: Bearer …',
  });
  const status = h('p', { class: 'tool-status', role: 'status' });
  const submit = h('button', { type: 'submit' }, 'Add server');
  const form = h(
    'form',
    { class: 'mcp-add-server', 'aria-labelledby': 'mcp-add-title' },
    h('h2', { id: 'mcp-add-title' }, 'Add your own MCP server'),
    h('label', { for: 'mcp-add-name' }, 'Name'),
    name,
    h('label', { for: 'mcp-add-url' }, 'Streamable HTTP URL'),
    url,
    h('label', { for: 'mcp-add-headers' }, 'Headers (one "Name: value" a line, optional)'),
    headers,
    submit,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const parsed = parseHeaderLines(headers.value);
    if (typeof parsed === 'string') {
      status.textContent = parsed;
      headers.focus();
      return;
    }
    await keepingFocus(submit, async () => {
      submit.disabled = true;
      status.textContent = 'Adding…';
      try {
        const added = await api.addMcpServer({
          name: name.value.trim(),
          url: url.value.trim(),
          ...(Object.keys(parsed).length > 0 ? { headers: parsed } : {}),
        });
        form.reset();
        status.textContent = await onAdded(added);
      } catch (error) {
        status.textContent = `Not added: ${(error as Error).message}`;
      } finally {
        submit.disabled = false;
      }
    });
  });
  return form;
}

/** `onRemoved` drops the server's group from the page. */
export function createRemoveServerButton(api: ApiClient, server: string, onRemoved: () => void): HTMLElement {
  const status = h('span', { class: 'tool-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'secondary' }, `Remove ${server}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await api.deleteMcpServer(server);
      onRemoved();
    } catch (error) {
      status.textContent = `Not removed: ${(error as Error).message}`;
      button.disabled = false;
      button.focus({ preventScroll: true });
    }
  });
  return h('div', { class: 'mcp-server-actions' }, button, status);
}
