/**
 * `serveImage` — the whole of `GET /api/images/:id` except authentication: the route resolves the
 * user and calls this. Only the image's owner gets it; anyone else gets the same 404 as for an id that
 * does not exist, so ids cannot be probed. The content type is the stored one (read from the file's
 * bytes when it was written), and `nosniff` stops a browser from second-guessing it.
 */
import type { ImageRepository } from './image-repository.ts';

function notFound(): Response {
  return Response.json({ error: 'Image not found.', code: 'not_found' }, { status: 404 });
}

export async function serveImage(
  repository: ImageRepository,
  userId: string,
  imageId: string,
): Promise<Response> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(imageId)) return notFound();
  const record = await repository.get(imageId);
  if (!record || record.userId !== userId) return notFound();
  const file = Bun.file(record.filePath);
  if (!(await file.exists())) return notFound();
  return new Response(file, {
    status: 200,
    headers: {
      'content-type': record.mimeType,
      'content-length': String(file.size),
      'cache-control': 'private, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    },
  });
}
