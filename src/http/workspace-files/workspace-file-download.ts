/**
 * `GET /api/workspaces/:id/files/content?path=`: one regular file of a workspace, streamed. The file is
 * opened at its resolved real path with links refused on every component (`HeldDirectory.openPathHandle`: a link
 * swapped in after the decision fails the open instead of being followed), `O_RDONLY | O_NONBLOCK |
 * O_NOCTTY` so a FIFO returns at once, and its descriptor is verified against the policy again; `fstat`
 * must show a regular file before a byte is sent, and every byte is read through that descriptor. The answer is always a download
 * (`Content-Disposition: attachment`, `nosniff`, a sandboxing CSP): a workspace file is never rendered
 * by the browser as a page, whatever its content. Its type is `application/octet-stream`, except a
 * PNG, JPEG, GIF or WebP image recognised by its bytes, which gets its image type so the files panel
 * can preview it (fetched with the token, shown from a `blob:` URL).
 */
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { detectImageFormat } from '../../images/image-files.ts';
import { SAFE_READ_FLAGS, verifyDescriptor } from '../../tools/fs/open-verified-file.ts';
import { HttpError } from '../http-errors.ts';
import { attachmentDisposition } from './download-filename.ts';
import { describeFileError } from './workspace-file-errors.ts';
import { resolveInWorkspace, type WorkspaceFileScope, withinWorkspace } from './workspace-file-scope.ts';

const CHUNK_BYTES = 64 * 1024;

/** Streams exactly `size` bytes (the size fstat reported) and closes the descriptor however it ends. */
function streamOf(handle: FileHandle, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(Math.min(CHUNK_BYTES, size - sent));
        const { bytesRead } =
          buffer.length === 0 ? { bytesRead: 0 } : await handle.read(buffer, 0, buffer.length, sent);
        if (bytesRead === 0) {
          await close();
          controller.close();
          return;
        }
        sent += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        await close();
        controller.error(error);
      }
    },
    cancel: close,
  });
}

/** Bytes enough to recognise every image format served (WebP's marker ends at byte 12). */
const SIGNATURE_BYTES = 16;

/**
 * The served type: a PNG, JPEG, GIF or WebP image by its own first bytes (read through the verified
 * descriptor, never from the name), so the page can show it in an `<img>`; anything else, SVG included
 * (it can carry script), is `application/octet-stream`.
 */
async function contentTypeOf(handle: FileHandle): Promise<string> {
  const signature = new Uint8Array(SIGNATURE_BYTES);
  const { bytesRead } = await handle.read(signature, 0, SIGNATURE_BYTES, 0);
  return detectImageFormat(signature.subarray(0, bytesRead))?.mimeType ?? 'application/octet-stream';
}

export async function downloadWorkspaceFile(scope: WorkspaceFileScope, path: string): Promise<Response> {
  const resolved = await resolveInWorkspace(scope, path);
  let handle: FileHandle;
  try {
    handle = await withinWorkspace(async () => {
      const opened = await HeldDirectory.openPathHandle(resolved.real, SAFE_READ_FLAGS);
      try {
        await verifyDescriptor(opened, resolved, scope.context);
        return opened;
      } catch (error) {
        await opened.close();
        throw error;
      }
    });
  } catch (error) {
    throw describeFileError(error, path);
  }
  let size: number;
  let contentType: string;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new HttpError(
        422,
        'not_a_file',
        stats.isDirectory()
          ? `${JSON.stringify(path)} is a directory; list it with GET /api/workspaces/${scope.id}/files?path=…`
          : `${JSON.stringify(path)} is not a regular file (a FIFO, socket or device), so it cannot be downloaded.`,
      );
    }
    size = stats.size;
    contentType = await contentTypeOf(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return new Response(streamOf(handle, size), {
    status: 200,
    headers: {
      'content-type': contentType,
      'content-length': String(size),
      'content-disposition': attachmentDisposition(basename(resolved.absolute)),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
    },
  });
}
