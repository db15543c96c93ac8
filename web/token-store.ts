/**
 * The signed-in user's API token, kept in localStorage so a reload stays signed in. The token is
 * only ever sent to this server, as `Authorization: Bearer …`.
 */

const STORAGE_KEY = 'mango.apiToken';

export function readToken(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  localStorage.setItem(STORAGE_KEY, token);
}

export function clearToken(): void {
  localStorage.removeItem(STORAGE_KEY);
}
