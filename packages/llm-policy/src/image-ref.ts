// Image references of the prompt: the sha256 (the key of the screenshot store), size and type of
// each screenshot sent, so traces point at images instead of carrying their bytes, and the data
// URL the request carries. JPEG and PNG sizes are read from their headers. Pure logic.
import { imageSize, sha256Hex } from '@owrl/core';
import { create, ImageRefSchema, type ImageRef } from '@owrl/proto';

/** The ImageRef of image bytes (sha256, mime, size). */
export function imageRef(b: Uint8Array): ImageRef {
  const { width, height, mime } = imageSize(b);
  return create(ImageRefSchema, { sha256: sha256Hex(b), mime, width, height, bytes: BigInt(b.length) });
}

export function dataUrl(b: Uint8Array): string {
  return `data:${imageSize(b).mime};base64,${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64')}`;
}

export { imageSize, sha256Hex };
