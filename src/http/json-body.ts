/**
 * The JSON body parser of the API routes, used instead of Elysia's so that bad input stays cheap and
 * always maps to a 4xx: the body is read whatever its content type (so `curl -d '{…}'` works), bounded
 * in size (413 even without a Content-Length), and refused when nested deeper than `MAX_JSON_DEPTH`
 * (400) — schema validation of a deeply nested value costs time quadratic in its depth.
 */
import { HttpError } from './http-errors.ts';

/** Deepest nesting of arrays/objects accepted; the settings bodies need 4. */
export const MAX_JSON_DEPTH = 32;

/** The deepest array/object nesting of a JSON text (strings skipped), stopping early past `limit`. */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return deepest;
}

/** Reads and parses a request's JSON body. @throws HttpError 400 `malformed_json` / 413. */
export async function parseJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > maxBytes) {
    throw new HttpError(413, 'payload_too_large', `The request body exceeds ${maxBytes} bytes.`);
  }
  const text = new TextDecoder().decode(bytes);
  if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new HttpError(
      400,
      'malformed_json',
      `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'malformed_json', 'The request body is not valid JSON.');
  }
}
