/**
 * An external server's `CallToolResult` as a Mango tool result. The model and the web app get:
 *
 * - `content`: each block in order — text as it is; an image stored like a generated one (the image
 *   store and repository `generate_image` uses) and given as `{type: 'image', id, url, mimeType,
 *   byteLength}`, or described without its bytes when it is over {@link MAX_IMAGE_BYTES}, not an image
 *   format Mango serves, or there is no data directory to keep it in; an embedded text resource with
 *   its text; binary resources and audio described by type and size (their bytes would only burn the
 *   result budget); a resource link as its URI and name.
 * - `structuredContent` when the server sent it.
 *
 * `isError: true` becomes a thrown `execution_error` carrying the server's own message, so the model
 * sees `ok: false` with what the server said. A result the connection cut at its byte limit
 * (message-cutter.ts) starts with a text block holding the cut marker — first, so the loop's own cut
 * of a long text cannot remove it. The result budget and its cut apply afterwards, as for every tool.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { detectImageFormat, writeImageFile } from '../images/image-files.ts';
import { getImageRepository, getImageUrl } from '../images/image-generation-config.ts';
import { ToolError } from '../tools/errors.ts';
import { mcpResultCutMarker } from '../tools/output/cut-notices.ts';
import type { ToolContext } from '../tools/types.ts';
import { transportCutOf } from './transport-cut.ts';

/** The largest image (decoded bytes) an external tool may hand back to be stored and shown. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export type ExternalContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; id: string; url: string; mimeType: string; byteLength: number }
  | { type: 'image'; omitted: string; mimeType: string }
  | { type: 'resource'; uri: string; mimeType?: string; text: string }
  | { type: 'resource'; uri: string; mimeType?: string; byteLength: number; omitted: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }
  | { type: 'audio'; mimeType: string; byteLength: number; omitted: string }
  | { type: 'unknown'; omitted: string };

export interface ExternalToolResult {
  content: ExternalContentBlock[];
  structuredContent?: Record<string, unknown>;
}

export interface ResultContext {
  server: string;
  tool: string;
  context: Pick<ToolContext, 'userId' | 'chatId' | 'dataDirectory' | 'now'>;
}

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

async function storeImage(
  data: string,
  mimeType: string,
  where: ResultContext,
): Promise<ExternalContentBlock> {
  const size = decodedLength(data);
  if (size > MAX_IMAGE_BYTES) {
    return {
      type: 'image',
      mimeType,
      omitted: `The image is ${size} bytes, over the ${MAX_IMAGE_BYTES}-byte cap.`,
    };
  }
  const { dataDirectory } = where.context;
  if (dataDirectory === undefined) {
    return { type: 'image', mimeType, omitted: 'No data directory to store images in for this caller.' };
  }
  const bytes = new Uint8Array(Buffer.from(data, 'base64'));
  const format = detectImageFormat(bytes);
  if (!format) {
    return { type: 'image', mimeType, omitted: 'The data is not a PNG, JPEG, WebP or GIF image.' };
  }
  const id = crypto.randomUUID().replaceAll('-', '');
  const filePath = await writeImageFile(dataDirectory, where.context.userId, id, bytes, format);
  await getImageRepository().save({
    id,
    userId: where.context.userId,
    chatId: where.context.chatId,
    model: `mcp:${where.server}`,
    prompt: where.tool,
    mimeType: format.mimeType,
    filePath,
    byteLength: bytes.byteLength,
    createdAt: where.context.now(),
  });
  return { type: 'image', id, url: getImageUrl(id), mimeType: format.mimeType, byteLength: bytes.byteLength };
}

function errorText(result: CallToolResult): string {
  const text = result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
    .trim();
  return text || 'it gave no message';
}

/** Maps one result. @throws ToolError `execution_error` with the server's message when `isError`. */
export async function mapExternalToolResult(
  result: CallToolResult,
  where: ResultContext,
): Promise<ExternalToolResult> {
  if (result.isError === true) {
    throw new ToolError(
      'execution_error',
      `${where.tool} on the MCP server "${where.server}" failed: ${errorText(result)}`,
    );
  }
  const content: ExternalContentBlock[] = [];
  const cut = transportCutOf(result);
  if (cut !== undefined) content.push({ type: 'text', text: mcpResultCutMarker(cut.bytes, cut.limitBytes) });
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: block.text });
        break;
      case 'image':
        content.push(await storeImage(block.data, block.mimeType, where));
        break;
      case 'audio':
        content.push({
          type: 'audio',
          mimeType: block.mimeType,
          byteLength: decodedLength(block.data),
          omitted: 'Audio is not passed on.',
        });
        break;
      case 'resource': {
        const resource = block.resource;
        const mimeType = resource.mimeType === undefined ? {} : { mimeType: resource.mimeType };
        if ('text' in resource && typeof resource.text === 'string') {
          content.push({ type: 'resource', uri: resource.uri, ...mimeType, text: resource.text });
        } else {
          const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
          content.push({
            type: 'resource',
            uri: resource.uri,
            ...mimeType,
            byteLength: decodedLength(blob),
            omitted: 'Binary resource contents are not passed on.',
          });
        }
        break;
      }
      case 'resource_link':
        content.push({
          type: 'resource_link',
          uri: block.uri,
          name: block.name,
          ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
          ...(block.description === undefined ? {} : { description: block.description }),
        });
        break;
      default:
        content.push({ type: 'unknown', omitted: 'A content block of a type Mango does not know.' });
    }
  }
  const mapped: ExternalToolResult = { content };
  if (result.structuredContent !== undefined) mapped.structuredContent = result.structuredContent;
  return mapped;
}
