/**
 * The `Content-Disposition` of a download: always `attachment` (a browser saves the file and never
 * renders it inline), with a plain-ASCII `filename` any client can use safely and the exact name in
 * `filename*` (RFC 6266 / RFC 8187). No character of a file name can break out of the header.
 */

/** Printable ASCII except the quote and backslash (which would end or escape the quoted string). */
const SAFE_ASCII = /^[\x20-\x7e]$/;

function asciiFallback(name: string): string {
  let result = '';
  for (const character of name) {
    result += SAFE_ASCII.test(character) && character !== '"' && character !== '\\' ? character : '_';
  }
  const trimmed = result.trim();
  return trimmed === '' || trimmed === '.' || trimmed === '..' ? 'download' : trimmed;
}

/** RFC 8187 percent-encoding: everything outside the attr-char set is encoded. */
function encodeExtValue(name: string): string {
  return encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function attachmentDisposition(name: string): string {
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeExtValue(name)}`;
}
