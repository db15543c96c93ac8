/**
 * Runs a generate_image plan: it streams per-image outcomes, summarizes them into a
 * single result, and stays within the configured `timeoutSeconds` execution budget.
 *
 * Guarantees:
 * - Every planned image is requested at once; they run concurrently under the call's one signal.
 * - Each image's outcome is sent through `onProgress` the moment it is known: `image_completed`
 *   (id, url, model…) or `image_failed` (index, id, `reason`), after one `image_generation_started`.
 *   Exactly one outcome event per image. Every event carries `total` (the images planned),
 *   `completed` (outcomes known so far: 0 on the start event) and a `message` for people ("image 2
 *   of 3 done", "image 3 of 3 failed: …"), which MCP clients show as the progress text (`src/mcp/mcp-progress.ts`); n counts finished images, in the order they finish.
 * - When the signal fires (budget or cancel), in-flight requests are aborted and every unfinished image
 *   fails at once with the signal's reason, even if a provider ignores its signal; nothing finished
 *   after that point is stored.
 * - The summary `{count, images, errors?}` lists completed images in plan order and failures by index.
 */

import type { ToolProgressEvent } from '../contracts/tool-progress-event.ts';
import { ToolExecutionError } from '../tools/errors.ts';
import {
  describeProviderError,
  type GeneratedImageData,
  type ImageProvider,
  type ImageQuality,
} from './image-provider.ts';

/**
 * What one call generates, decided before any request (the generate_image tool plans it from the
 * model's arguments and the user's settings).
 */
export interface PlannedImage {
  /** 0-based position in the call; error entries refer to it. */
  index: number;
  id: string;
}

export interface GenerateImageToolPlan {
  prompt: string;
  /** Images this call produces (after capping). */
  count: number;
  /** What the model asked for (1 when it did not say). */
  requestedCount: number;
  /** True when `count` was lowered to the user's `maxImagesPerCall`. */
  capped: boolean;
  quality: ImageQuality;
  /** Where the quality came from: the model's argument or the user's default. */
  qualitySource: 'model' | 'setting';
  model: string;
  /** Where the model came from: the model's argument, the user's `defaultModel`, or the fallback. */
  modelSource: 'model' | 'setting' | 'fallback';
  images: PlannedImage[];
}

/** Where a stored image can be fetched. */
export interface StoredImage {
  url: string;
  mimeType: string;
  byteLength: number;
}

export interface GeneratedImageSummary {
  index: number;
  id: string;
  url: string;
  model: string;
  mimeType: string;
  byteLength: number;
  revisedPrompt?: string;
}

export interface ImageFailureSummary {
  index: number;
  message: string;
}

/** The tool result: one object for the whole call. */
export interface GenerateImageResult {
  /** Images this call attempted (after capping to `maxImagesPerCall`). */
  count: number;
  model: string;
  quality: ImageQuality;
  images: GeneratedImageSummary[];
  errors?: ImageFailureSummary[];
  /** Set when the budget ran out or the user cancelled before every image finished. */
  stopped?: 'timeout' | 'cancelled';
  /** Tells the model about an adjustment it should know of (e.g. the count was capped). */
  notice?: string;
}

export interface GenerateImagesDependencies {
  provider: ImageProvider;
  signal: AbortSignal;
  onProgress: (event: ToolProgressEvent) => void;
  /** Stores one generated image (file + record) and says where it is served. */
  storeImage: (image: PlannedImage, data: GeneratedImageData) => Promise<StoredImage>;
}

type ImageOutcome =
  | { status: 'completed'; image: GeneratedImageSummary }
  | { status: 'failed'; failure: ImageFailureSummary & { id: string } };

function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : 'The image generation was stopped.';
}

function stoppedKind(signal: AbortSignal): 'timeout' | 'cancelled' {
  const classification = (signal.reason as { classification?: unknown } | undefined)?.classification;
  return classification === 'timeout' ? 'timeout' : 'cancelled';
}

/**
 * Generates every image of the plan and returns the summary. When no image completes it throws: the
 * signal's reason when the call was stopped, else a ToolExecutionError quoting each failure.
 */
export async function generateImages(
  plan: GenerateImageToolPlan,
  dependencies: GenerateImagesDependencies,
): Promise<GenerateImageResult> {
  const { signal, onProgress } = dependencies;
  const total = plan.count;
  let finished = 0;
  onProgress({
    type: 'image_generation_started',
    total,
    completed: 0,
    message: `generating ${total} image${total === 1 ? '' : 's'} with ${plan.model}`,
    count: plan.count,
    model: plan.model,
    quality: plan.quality,
    imageIds: plan.images.map((image) => image.id),
  });

  let removeAbortListener = () => {};
  const stopped = new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const listener = () => resolve();
    signal.addEventListener('abort', listener, { once: true });
    removeAbortListener = () => signal.removeEventListener('abort', listener);
  });

  const runOne = async (image: PlannedImage): Promise<ImageOutcome> => {
    const abandoned = stopped.then(
      (): ImageOutcome => ({
        status: 'failed',
        failure: { index: image.index, id: image.id, message: abortMessage(signal) },
      }),
    );
    const outcome = await Promise.race([attemptImage(image, plan, dependencies), abandoned]);
    finished += 1;
    onProgress(progressEventOf(outcome, finished, total));
    return outcome;
  };

  let outcomes: ImageOutcome[];
  try {
    outcomes = await Promise.all(plan.images.map(runOne));
  } finally {
    removeAbortListener();
  }

  return resultOf(plan, outcomes, signal);
}

/** One image: generated by the provider and stored, or the failure in words. */
async function attemptImage(
  image: PlannedImage,
  plan: GenerateImageToolPlan,
  dependencies: GenerateImagesDependencies,
): Promise<ImageOutcome> {
  const { provider, signal } = dependencies;
  try {
    const data = await provider.generate({
      prompt: plan.prompt,
      model: plan.model,
      quality: plan.quality,
      signal,
    });
    if (signal.aborted) throw signal.reason;
    const stored = await dependencies.storeImage(image, data);
    return {
      status: 'completed',
      image: {
        index: image.index,
        id: image.id,
        url: stored.url,
        model: plan.model,
        mimeType: stored.mimeType,
        byteLength: stored.byteLength,
        ...(data.revisedPrompt ? { revisedPrompt: data.revisedPrompt } : {}),
      },
    };
  } catch (error) {
    const message = signal.aborted
      ? abortMessage(signal)
      : describeProviderError(provider.displayName, error);
    return { status: 'failed', failure: { index: image.index, id: image.id, message } };
  }
}

/** The progress event of the `finished`-th image to end, of `total`. */
function progressEventOf(outcome: ImageOutcome, finished: number, total: number): ToolProgressEvent {
  if (outcome.status === 'completed') {
    return {
      type: 'image_completed',
      ...outcome.image,
      total,
      completed: finished,
      message: `image ${finished} of ${total} done`,
    };
  }
  const { message: reason, ...failure } = outcome.failure;
  return {
    type: 'image_failed',
    ...failure,
    reason,
    total,
    completed: finished,
    message: `image ${finished} of ${total} failed: ${reason}`,
  };
}

/**
 * The call's result from every image's outcome; with no image at all it throws, the signal's reason
 * when the call was stopped.
 */
function resultOf(
  plan: GenerateImageToolPlan,
  outcomes: readonly ImageOutcome[],
  signal: AbortSignal,
): GenerateImageResult {
  const images = outcomes.flatMap((outcome) => (outcome.status === 'completed' ? [outcome.image] : []));
  const errors = outcomes.flatMap((outcome) =>
    outcome.status === 'failed' ? [{ index: outcome.failure.index, message: outcome.failure.message }] : [],
  );
  if (images.length === 0) {
    if (signal.aborted) throw signal.reason;
    const details = errors.map((error) => `image ${error.index + 1}: ${error.message}`).join('; ');
    throw new ToolExecutionError(
      `No image was generated (${plan.count} attempted with model "${plan.model}"). ${details}`,
    );
  }
  const notices: string[] = [];
  if (plan.capped) {
    notices.push(
      `${plan.requestedCount} images were requested; this user's maxImagesPerCall setting allows ${plan.count}.`,
    );
  }
  return {
    count: plan.count,
    model: plan.model,
    quality: plan.quality,
    images,
    ...(errors.length > 0 ? { errors } : {}),
    ...(signal.aborted && errors.length > 0 ? { stopped: stoppedKind(signal) } : {}),
    ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
  };
}
