/**
 * `GET /api/workspaces/:id/files/content?path=`: one regular file of a workspace, streamed. The file
 * work is the request's file operations' (in the user's file worker when the server runs them):
 * `openDownload` opens the file at its resolved real path with links refused on every component, `O_RDONLY
 * | O_NONBLOCK | O_NOCTTY` so a FIFO returns at once, verifies its descriptor against the policy again
 * and needs `fstat` to show a regular file before a byte is sent; then each piece of the answer is one
 * `readRange` of that same object (reopened the same way, refused if another object took the name), so
 * a file of any size streams through in bounded pieces. The file's location is decided again here (the
 * second wall).
 *
 * The answer is always a download (`Content-Disposition: attachment`, `nosniff`, a sandboxing CSP): a
 * workspace file is never rendered by the browser as a page, whatever its content. Its type is
 * `application/octet-stream`, except a PNG, JPEG, GIF or WebP image recognised by its bytes, which gets
 * its image type so the files panel can preview it (fetched with the token, shown from a `blob:` URL).
 */
import { basename } from 'node:path';
import { detectImageFormat } from '../../images/image-files.ts';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { expandToolPath } from '../../tools/access/tool-path-syntax.ts';
import type { DownloadOutcome, FileOperations } from '../../tools/fs/file-operations.ts';
import { outsideWorkspaces } from '../../workspaces/workspace-error.ts';
import { HttpError } from '../http-errors.ts';
import { attachmentDisposition } from './download-filename.ts';
import { describeFileError } from './workspace-file-errors.ts';
import { requireInWorkspace, type WorkspaceFileScope } from './workspace-file-scope.ts';

/**
 * One piece of the answer. Each is a reopen of the file (and, with workers, one call through the
 * worker's pipe, whose capacity is 1 MiB), so pieces are large enough that a big file costs few of them.
 */
const CHUNK_BYTES = 1024 * 1024;

type OpenedFile = Extract<DownloadOutcome, { kind: 'file' }>;

/** Streams at most `file.size` bytes (the size fstat reported), one range at a time. */
function streamOf(operations: FileOperations, file: OpenedFile, shown: string): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const length = Math.min(CHUNK_BYTES, file.size - sent);
        const bytes =
          length === 0
            ? new Uint8Array(0)
            : await operations.readRange({
                real: file.real,
                identity: file.identity,
                offset: sent,
                length,
                shown,
              });
        if (bytes.length === 0) {
          controller.close();
          return;
        }
        sent += bytes.length;
        controller.enqueue(bytes);
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

export async function downloadWorkspaceFile(scope: WorkspaceFileScope, path: string): Promise<Response> {
  const operations = fileOperationsFor(scope.context);
  let opened: DownloadOutcome;
  try {
    opened = await operations.openDownload(path);
  } catch (error) {
    throw describeFileError(error, path);
  }
  if (opened.kind === 'refused') throw outsideWorkspaces();
  if (opened.kind !== 'file') {
    throw new HttpError(
      422,
      'not_a_file',
      opened.kind === 'directory'
        ? `${JSON.stringify(path)} is a directory; list it with GET /api/workspaces/${scope.id}/files?path=…`
        : `${JSON.stringify(path)} is not a regular file (a FIFO, socket or device), so it cannot be downloaded.`,
    );
  }
  await requireInWorkspace(scope, opened.real, 'read', path);
  // The served type comes from the file's own first bytes, never from its name; anything but the
  // image types above, SVG included (it can carry script), is application/octet-stream.
  const contentType = detectImageFormat(opened.signature)?.mimeType ?? 'application/octet-stream';
  return new Response(streamOf(operations, opened, path), {
    status: 200,
    headers: {
      'content-type': contentType,
      'content-length': String(opened.size),
      // Named as the request named it (a link keeps its own name), by the path alone.
      'content-disposition': attachmentDisposition(basename(expandToolPath(path, scope.context.reachable))),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
    },
  });
}
