/**
 * `GET /api/images/:id`: a generated image, to its owner only. Thin: authentication gives
 * `user`, `serveImage` does the rest — anyone but the owner gets the same 404 as for an unknown id, and
 * the content type is the one read from the file's bytes when it was stored.
 */
import { Elysia, t } from 'elysia';
import { serveImage } from '../../images/serve-image.ts';
import type { AppDependencies } from '../app-dependencies.ts';

export function createImageRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-image-routes' })
    .use(deps.authentication)
    .get('/api/images/:id', ({ user, params }) => serveImage(deps.images, user.id, params.id), {
      params: t.Object({ id: t.String({ maxLength: 1024 }) }),
      detail: {
        summary: 'A generated image (PNG, JPEG, WebP or GIF); 404 unless it is yours',
        tags: ['images'],
        operationId: 'getImage',
        responses: {
          200: {
            description: 'The image, with its own media type.',
            content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
          },
          404: { description: "No such image, or another user's" },
        },
      },
    });
}
